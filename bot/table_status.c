/*
 * table_status.c - the answers to !status and !table: the game, the round,
 * trump and the trick so far, who is to act, the standings, and for a
 * player asking privately their hand with the cards they may play marked;
 * and to !scores once the game is over, from its end kept in the store.
 *
 * As table_view.c, everything here reads a table and writes text, from
 * the engine's views: the public one, or the asking seat's own.
 */
#include <stdlib.h>
#include <string.h>

#include "bot_int.h"
#include "log.h"
#include "loop.h"
#include "present.h"
#include "store.h"
#include "table_int.h"
#include "xmalloc.h"

/* The game, the round, trump and the trick so far. */
void
status_summary(struct table *table, struct text *out)
{
	enum lang lang = table_lang(table);
	json_t *view = table_public_view(table);
	json_t *trick, *play;
	size_t i;

	game_title(out, lang, table->impl);
	text_add(out, " · ");
	say_round(out, lang, view);
	if (json_is_string(json_object_get(view, "trump"))) {
		const char *code = json_string_value(json_object_get(view,
		    "trump"));

		text_add(out, " · ");
		SAY0(out, lang, MSG_TRUMP_WORD);
		text_add(out, " ");
		text_card(out, code[0], code);
	}
	trick = json_object_get(view, "trick");
	if (json_array_size(trick) > 0) {
		text_add(out, " · ");
		SAY0(out, lang, MSG_TRICK_WORD);
		json_array_foreach(trick, i, play) {
			text_add(out, i > 0 ? ", " : " ");
			text_bold(out, table_seat_name(table, (int)
			    json_integer_value(json_object_get(play,
			    "seat"))));
			text_add(out, " ");
			/* BirdHead's plays hold several "cards". */
			text_play_cards(out, table, json_object_get(play, "card") !=
			    NULL ? json_object_get(play, "card") :
			    json_object_get(play, "cards"));
		}
	}
}

void
table_status(struct table *table, struct text *out)
{
	enum lang lang = table_lang(table);
	int acting[GAME_MAX_SEATS];
	int n;

	if (table->game == NULL) {
		game_title(out, lang, table->impl);
		text_add(out, " · ");
		if (table->nseats == 0) {
			SAY(out, lang, MSG_STATUS_LOBBY_EMPTY, "ddc",
			    table->impl->min_seats, table->impl->max_seats,
			    table_prefix(table));
			return;
		}
		SAY(out, lang, MSG_STATUS_LOBBY, "ddd", table->nseats,
		    table->impl->min_seats, table->impl->max_seats);
		for (int s = 0; s < table->nseats; s++) {
			text_add(out, s > 0 ? ", " : " ");
			text_seat(out, table, s, 0);
		}
		return;
	}
	status_summary(table, out);
	n = table->impl->to_act(table->game->state, acting);
	if (n == 1 && table_addressed(table, acting[0])) {
		your_turn(table, table->impl->phase(table->game->state), out);
	} else if (n > 0) {
		text_add(out, " · ");
		for (int k = 0; k < n; k++) {
			if (k > 0)
				text_add(out, ", ");
			text_seat(out, table, acting[k], 0);
		}
		text_add(out, " ");
		text_task(out, table, table->impl->phase(table->game->state));
	}
	text_add(out, "\n");
	table_player_lines(table, out);
}

/*
 * The cards of hand (codes) with those seat may play now in brackets
 * ("r3 [y5] [y9] W"), so that the mark survives a plain rendering; none
 * bracketed when seat is not to play.
 */
static void
text_hand_marked(struct text *t, struct table *table, int seat,
    const json_t *hand)
{
	struct action legal[GAME_MAX_ACTIONS];
	int n = 0;
	size_t i;
	json_t *code;

	if (table->impl->phase(table->game->state) == PHASE_PLAY &&
	    seat_to_act(table, seat))
		n = table->impl->legal(table->game->state, seat, legal,
		    GAME_MAX_ACTIONS);
	json_array_foreach(hand, i, code) {
		const char *c = json_string_value(code);
		int allowed = 0;
		char played[8];

		if (c == NULL)
			continue;
		for (int k = 0; k < n && !allowed; k++)
			for (int j = 0; j < legal[k].ncards && !allowed; j++) {
				table->impl->format_card(legal[k].cards[j],
				    played, sizeof(played));
				allowed = strcmp(played, c) == 0;
			}
		if (i > 0)
			text_add(t, " ");
		if (allowed)
			text_add(t, "[");
		text_card(t, table_card_color(table, c), c);
		if (allowed)
			text_add(t, "]");
	}
}

void
table_view(struct table *table, int seat, struct text *out)
{
	json_t *view;

	if (table->game == NULL) {
		table_status(table, out);
		return;
	}
	status_summary(table, out);
	text_play_hint(out, table);
	text_add(out, "\n");
	if (seat < 0 || seat >= table->nseats) {
		table_player_lines(table, out);
		return;
	}
	/* Said to seat alone: its own hidden bid shows. */
	player_lines(table, seat, out);
	view = table->impl->view(table->game->state, seat);
	if (json_object_get(view, "others") == NULL) {
		json_t *hand = json_object_get(view, "hand");

		text_add(out, "\n");
		SAY0(out, table_lang(table), MSG_VIEW_HAND);
		text_add(out, " ");
		if (json_array_size(hand) == 0)
			SAY0(out, table_lang(table), MSG_HAND_EMPTY);
		else
			text_hand_marked(out, table, seat, hand);
	}
	json_decref(view);
}

/*
 * "!scores" after a game: its end as it was said ("Game over. Winner: ..."
 * and the ranking), in plain text, with the game's name and when it
 * ended, kept in the store under this key.
 */
static void
last_end_key(const struct channel *channel, struct text *key)
{
	text_printf(key, "last_end:%s %s", channel->network->adapter.network,
	    channel->name);
}

static void
last_end_store(struct table *table, const char *value)
{
	struct text key;

	text_init(&key);
	last_end_key(table->channel, &key);
	/* In the transaction that ends the game (store_game_end()). */
	if (store_kv_defer(table_bot(table)->store, text_str(&key),
	    value) != 0)
		log_warn("%s %s: cannot keep the end of the game for !scores",
		    table->channel->network->adapter.network,
		    table->channel->name);
	text_finish(&key);
}

void
table_keep_end(struct table *table, json_t *result)
{
	struct text said, plain;
	const char *lines;
	json_t *kept;
	char *value;

	text_init(&said);
	announce_game_end(table, result, &said);
	text_init(&plain);
	text_render(&said, TEXT_FORMAT_PLAIN, &plain);
	lines = text_str(&plain);
	lines += strspn(lines, "\n");
	/* kept: ours, freed here. */
	kept = json_pack("{s:s, s:I, s:s}", "game", table->impl->name,
	    "ended", (json_int_t)loop_time(table_bot(table)->loop), "text",
	    lines);
	value = kept != NULL ? json_dumps(kept, JSON_COMPACT) : NULL;
	last_end_store(table, value != NULL ? value : "");
	free(value);
	json_decref(kept);
	text_finish(&plain);
	text_finish(&said);
}

void
table_forget_end(struct table *table)
{
	last_end_store(table, "");
}

int
channel_last_end(struct channel *channel, enum lang lang, struct text *out)
{
	struct bot *bot = channel->network->bot;
	const struct game_impl *impl;
	const char *game, *said;
	struct text key, title;
	int64_t ago;
	json_t *kept = NULL;
	char *value, *copy;

	text_init(&key);
	last_end_key(channel, &key);
	value = store_kv_get(bot->store, text_str(&key));
	text_finish(&key);
	/* kept: ours, freed below; game and said point into it. */
	if (value != NULL && value[0] != '\0')
		kept = json_loads(value, 0, NULL);
	free(value);
	game = json_string_value(json_object_get(kept, "game"));
	said = json_string_value(json_object_get(kept, "text"));
	if (game == NULL || said == NULL || (impl = game_find(game)) == NULL) {
		json_decref(kept);
		return 0;
	}
	text_init(&title);
	game_title(&title, lang, impl);
	ago = loop_time(bot->loop) - (int64_t)json_integer_value(
	    json_object_get(kept, "ended"));
	if (ago < 60)
		SAY(out, lang, MSG_LAST_END_NOW, "r", text_str(&title));
	else if (ago < 120 * 60)
		SAY(out, lang, MSG_LAST_END_MINUTES, "rd", text_str(&title),
		    (int)(ago / 60));
	else if (ago < 48 * 3600)
		SAY(out, lang, MSG_LAST_END_HOURS, "rd", text_str(&title),
		    (int)(ago / 3600));
	else
		SAY(out, lang, MSG_LAST_END_DAYS, "rd", text_str(&title),
		    (int)(ago / 86400));
	text_finish(&title);
	/*
	 * Read back from the store: user text again, line by line (a line
	 * break inside user text would read as a space).
	 */
	copy = xstrdup(said);
	for (char *line = copy, *next; *line != '\0'; line = next) {
		next = line + strcspn(line, "\n");
		if (*next != '\0')
			*next++ = '\0';
		text_add(out, "\n");
		text_user(out, line);
	}
	free(copy);
	json_decref(kept);
	return 1;
}
