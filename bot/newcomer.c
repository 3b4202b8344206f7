/*
 * newcomer.c - what makes the bot easy to read for someone new (issue 17),
 * kept apart from the game flow (table.c) and the command parser
 * (commands.c), which only call it:
 *
 *   - speaking to the person who reads a channel: on a medium with one
 *     reader (the terminal, adapter.h's reader()), their seat is "You" and
 *     sentences about it take their second-person form;
 *   - the ranking at the end of a game;
 *   - the short rules behind `rules`;
 *   - how near a mistyped command is to a real one, for "did you mean".
 */
#include <ctype.h>
#include <limits.h>
#include <string.h>
#include <strings.h>

#include "bot_int.h"
#include "medium.h"

const char *
channel_reader(struct channel *channel)
{
	return medium_reader(&channel->network->adapter, channel->name);
}

int
table_addressed(const struct table *table, int seat)
{
	const char *reader = channel_reader(table_channel(table));
	const struct seat *s;

	if (reader == NULL || seat < 0 || seat >= table_nseats(table))
		return 0;
	s = table_seat(table, seat);
	return !s->computer && s->user_id != NULL &&
	    strcmp(s->user_id, reader) == 0;
}

const char *
table_seat_name(const struct table *table, int seat)
{
	if (table_addressed(table, seat))
		return i18n_get(table_channel(table)->settings.lang, MSG_YOU);
	return table_seat(table, seat)->name;
}

enum msg
table_seat_msg(const struct table *table, int seat, enum msg third,
    enum msg second)
{
	return table_addressed(table, seat) ? second : third;
}

/* Whether seat a ranks below seat b (table_ranking()). */
static int
ranks_below(int a, int b, const int *lasted, const int *total, int low)
{
	if (lasted[a] != lasted[b])
		return lasted[a] < lasted[b];
	return low ? total[a] > total[b] : total[a] < total[b];
}

void
table_ranking(const struct table *table, const json_t *scores,
    const struct game_brief *brief, struct text *out)
{
	int order[GAME_MAX_SEATS], total[GAME_MAX_SEATS], lasted[GAME_MAX_SEATS];
	int n = table_nseats(table);
	int low = table_impl(table)->lower_score_wins;

	/*
	 * Seats eliminated (Wizard's nannie) cannot win: they rank below
	 * everyone still in, the later out above the sooner, and by total
	 * only among equals.
	 */
	for (int i = 0; i < n; i++) {
		order[i] = i;
		total[i] = (int)json_integer_value(json_array_get(scores,
		    (size_t)i));
		lasted[i] = brief->eliminated & (1u << i) ? brief->played[i] :
		    INT_MAX;
	}
	/* An insertion sort keeps seat order among equals. */
	for (int i = 1; i < n; i++) {
		int s = order[i], k = i;

		while (k > 0 && ranks_below(order[k - 1], s, lasted, total,
		    low)) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = s;
	}
	text_add(out, "\n");
	SAY0(out, table_channel(table)->settings.lang, MSG_RANKING);
	for (int i = 0, place = 1; i < n; i++) {
		if (i > 0 && (total[order[i]] != total[order[i - 1]] ||
		    lasted[order[i]] != lasted[order[i - 1]]))
			place = i + 1;
		text_printf(out, "%s%d. ", i > 0 ? " · " : " ", place);
		text_seat(out, table, order[i], 0);
		text_printf(out, " %d", total[order[i]]);
	}
}

void
rules_say(struct text *out, enum lang lang, char prefix, const char *name)
{
	static const struct {
		const char *name;
		enum msg text;
	} rules[] = {
		{ "wizard", MSG_RULES_WIZARD },
		{ "birdhead", MSG_RULES_BIRDHEAD },
		{ "sticheln", MSG_RULES_STICHELN },
		{ "notequal", MSG_RULE_NOTEQUAL },
		{ "evenbid", MSG_RULE_EVENBID },
		{ "canadian", MSG_RULE_CANADIAN },
		{ "hardcore", MSG_RULE_HARDCORE },
		{ "hiddentip", MSG_RULE_HIDDENTIP },
		{ "secret", MSG_RULE_SECRET },
		{ "quick", MSG_RULE_QUICK },
		{ "rounds", MSG_RULE_ROUNDS },
		{ "amigo", MSG_RULE_AMIGO },
		{ "custom6", MSG_RULE_CUSTOM6 },
		{ "nannie", MSG_RULE_NANNIE },
		{ "jesterbid", MSG_RULE_JESTERBID },
		{ "clairvoyance", MSG_RULE_CLAIRVOYANCE },
		{ "dm", MSG_RULE_DM },
	};
	/* An option may be asked about as it is set: "nannie=2". */
	size_t n = strcspn(name, "=");

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		if (strlen(rules[i].name) != n ||
		    strncasecmp(name, rules[i].name, n) != 0)
			continue;
		SAY0(out, lang, rules[i].text);
		/*
		 * A game's summary says where more is, on a line of its own
		 * so that a medium cutting long lines never splits it.
		 */
		if (i < 3) {
			text_add(out, "\n");
			SAY(out, lang, MSG_RULES_MORE, "c", prefix);
		}
		return;
	}
	{
		char quote[TEXT_QUOTE_SIZE];

		SAY(out, lang, MSG_RULES_UNKNOWN, "sc", text_quote(quote, name),
		    prefix);
	}
}

/*
 * The edit distance between a and b (insertions, deletions, changes and
 * swaps of neighbours, ignoring case), for names of up to 15 bytes.
 */
static int
edit_distance(const char *a, const char *b)
{
	int d[16][16];
	size_t la = strlen(a), lb = strlen(b);

	if (la > 15 || lb > 15)
		return 99;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t k = 0; k <= lb; k++)
		d[0][k] = (int)k;
	for (size_t i = 1; i <= la; i++) {
		for (size_t k = 1; k <= lb; k++) {
			int ai = tolower((unsigned char)a[i - 1]);
			int bk = tolower((unsigned char)b[k - 1]);
			int best = d[i - 1][k - 1] + (ai != bk);

			if (d[i - 1][k] + 1 < best)
				best = d[i - 1][k] + 1;
			if (d[i][k - 1] + 1 < best)
				best = d[i][k - 1] + 1;
			if (i > 1 && k > 1 &&
			    ai == tolower((unsigned char)b[k - 2]) &&
			    tolower((unsigned char)a[i - 2]) == bk &&
			    d[i - 2][k - 2] + 1 < best)
				best = d[i - 2][k - 2] + 1;
			d[i][k] = best;
		}
	}
	return d[la][lb];
}

int
name_distance(const char *word, const char *name)
{
	size_t len = strlen(word);
	int d;

	/* A name begun and not finished ("stat") is the best guess. */
	if (len >= 3 && strncasecmp(word, name, len) == 0)
		return 0;
	d = edit_distance(word, name);
	/* Short words are too near everything to guess from. */
	return d * 3 <= (int)len ? d : 99;
}
