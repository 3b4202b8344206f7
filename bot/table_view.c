/*
 * table_view.c - what people are told about a table: the lines of moves,
 * rounds and game ends, the standings and score sheet, and the hand each
 * player gets privately (refusals: table_refusal.c; the answers to
 * !status and !table: table_status.c).
 *
 * Everything here reads a table and writes text; only table.c changes a
 * table.  Messages are built from what the engine's views and result say,
 * never from the full state: a channel line is made from view(state, -1),
 * a private one from view(state, seat), so hidden information cannot leak
 * through a formatting mistake here.  What differs from game to game is
 * asked of the game's presentation (present/present.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot_int.h"
#include "medium.h"
#include "present.h"
#include "table_int.h"

/* The presentation of the table's game (present/present.h). */
static const struct game_present *
table_present(const struct table *table)
{
	return present_find(table->impl->name);
}

char
table_card_color(const struct table *table, const char *code)
{
	const struct game_present *p = table_present(table);

	return p != NULL ? p->card_color(code) : '0';
}

/* Appends card codes (a JSON array of strings) separated by spaces. */
static void
text_cards(struct text *t, const struct table *table, const json_t *codes)
{
	size_t i;
	json_t *code;

	json_array_foreach(codes, i, code) {
		const char *s = json_string_value(code);

		if (s == NULL)
			continue;
		if (i > 0)
			text_add(t, " ");
		text_card(t, table_card_color(table, s), s);
	}
}

/* A play's cards: a string (one card) or a list (BirdHead). */
void
text_play_cards(struct text *t, const struct table *table,
    const json_t *cards)
{
	if (json_is_string(cards))
		text_card(t, table_card_color(table,
		    json_string_value(cards)), json_string_value(cards));
	else
		text_cards(t, table, cards);
}

void
text_seat(struct text *t, const struct table *table, int seat, int mention)
{
	const struct seat *s = &table->seats[seat];

	if (table_addressed(table, seat))
		text_bold(t, table_seat_name(table, seat));
	else if (mention && !s->computer && !s->standin &&
	    s->user_id[0] != '\0')
		text_mention(t, s->user_id, s->name);
	else
		text_bold(t, s->name);
}

/*
 * "[#cards] ", naming the table in a private line as people know it (a
 * Matrix room by its alias or name, never its id).
 */
void
text_table_tag(struct text *t, struct table *table)
{
	char title[256];

	channel_title(table->channel, title, sizeof(title));
	text_add(t, "[");
	text_user(t, title);
	text_add(t, "] ");
}

void
game_title(struct text *t, enum lang lang, const struct game_impl *impl)
{
	const struct game_present *p = present_find(impl->name);

	if (p != NULL)
		SAY0(t, lang, p->title);
	else
		text_user(t, impl->name);
}

/*
 * The per-player line of seed 000: each seat's name and what its game
 * shows after it (the total, and the like: struct game_present), as
 * viewer may know it (-1: everybody; a seat sees its own secret bid).
 */
void
player_lines(struct table *table, int viewer, struct text *out)
{
	const struct game_present *present = table_present(table);
	struct game_brief brief;
	int first = 1;

	table_brief(table, viewer, &brief);
	for (int seat = 0; seat < table->nseats; seat++) {
		if (brief.eliminated & (1u << seat))
			continue;
		if (!first)
			text_add(out, " · ");
		first = 0;
		text_bold(out, table_seat_name(table, seat));
		if (present != NULL)
			present->standing(out, table_lang(table), &brief,
			    seat);
	}
}

void
table_player_lines(struct table *table, struct text *out)
{
	player_lines(table, -1, out);
}

/*
 * The score sheet as a table: a row per round from round first (from 0)
 * with each seat's tricks/bid and points (Wizard), penalty (BirdHead) or
 * points and penalty card (Sticheln), and the totals; with legend, what
 * the cells mean.  Each medium lays it out (see text.h), so names stay
 * whole where the medium has room.  Read from the engine's rounds in
 * numbers (round_result()), not its JSON result.
 */
static void
score_sheet(struct table *table, int first, int legend, struct text *out)
{
	const struct game_present *present = table_present(table);
	const void *state = table->game->state;
	enum lang lang = table_lang(table);
	struct game_brief brief;
	struct game_round round;
	char cell[64];
	int r;

	text_table_begin(out);
	SAY0(out, lang, MSG_SHEET_ROUND);
	for (int seat = 0; seat < table->nseats; seat++) {
		text_table_cell(out);
		text_user(out, table_seat_name(table, seat));
	}
	for (r = 0; table->impl->round_result(state, r, &round) == 0; r++) {
		if (!round.scored || r < first)
			continue;
		text_table_row(out);
		text_printf(out, "%d", r + 1);
		for (int seat = 0; seat < table->nseats; seat++) {
			if (present == NULL || !present->sheet_cell(cell,
			    sizeof(cell), &round, seat))
				snprintf(cell, sizeof(cell), "-");
			text_table_cell(out);
			text_user(out, cell);
		}
	}
	text_table_row(out);
	SAY0(out, lang, MSG_SHEET_TOTAL);
	table_brief(table, -1, &brief);
	for (int seat = 0; seat < table->nseats; seat++) {
		text_table_cell(out);
		text_printf(out, "%d", brief.score[seat]);
	}
	text_table_end(out);
	/* What the cells mean, once the sheet has a round. */
	if (legend && r > 0 && present != NULL) {
		text_add(out, "\n");
		SAY0(out, lang, present->sheet_legend);
	}
}

void
table_scores(struct table *table, struct text *out)
{
	score_sheet(table, 0, 1, out);
}

/*
 * The sheet at a round's end.  A chat hears the rounds before again
 * only when the game ends (or on !scores): in between, the round just
 * over and the totals, under the names, are the news, and a whole sheet
 * each round was a fifth of a Wizard game's lines.  The legend comes
 * with the first round's sheet and the last.  A terminal, which costs
 * nothing to write to, shows the whole sheet each time.
 */
static void
round_sheet(struct table *table, struct text *out)
{
	int whole = table->round_seen == 0 || channel_reader(table->channel) !=
	    NULL || table->impl->phase(table->game->state) == PHASE_OVER;

	score_sheet(table, whole ? 0 : table->round_seen, whole, out);
}

/* What seat must do now, for prompts: "bid (0-3)", "play a card", ... */
void
text_task(struct text *t, struct table *table, enum game_phase phase)
{
	enum lang lang = table_lang(table);

	switch (phase) {
	case PHASE_TRUMP:
		SAY0(t, lang, MSG_TASK_TRUMP);
		break;
	case PHASE_BID:
	case PHASE_BID_SIMULTANEOUS:
		SAY0(t, lang, MSG_TASK_BID);
		break;
	case PHASE_SELECT:
		SAY0(t, lang, MSG_TASK_SELECT);
		break;
	default:
		SAY0(t, lang, MSG_TASK_PLAY);
		break;
	}
}

/* newcomer (issue 17): " · your turn to bid" to the channel's reader. */
void
your_turn(struct table *table, enum game_phase phase, struct text *out)
{
	struct text task;

	text_init(&task);
	text_task(&task, table, phase);
	if (out->len > 0)
		text_add(out, " · ");
	SAY(out, table_lang(table), MSG_YOUR_TURN, "r", text_str(&task));
	text_finish(&task);
}

/*
 * Whether seat, to act now, needs a private prompt beyond the channel's
 * mention (issue 16: a prompt per turn doubled what a game says).  The
 * mention names the task, and the public hint (lead suit, standard to
 * meet) what constrains a play; the hand came with the deal, and !hand
 * gives it again with the moves allowed.  Privately, then, only what the
 * channel cannot carry: a task answered privately (hidden bids, penalty
 * cards) that the deal's line did not already set, bids cut down by a
 * rule that would reveal hidden bids if said in public (notequal under
 * secret bids), and plays a clairvoyant player cannot see.
 */
int
needs_prompt(struct table *table, int seat, enum game_phase phase)
{
	struct action legal[GAME_MAX_ACTIONS];
	struct game_brief brief;
	int n;

	if (table->hand_prompted & (1u << seat))
		return 0;
	switch (phase) {
	case PHASE_BID_SIMULTANEOUS:
	case PHASE_SELECT:
		return 1;
	case PHASE_BID:
		n = table->impl->legal(table->game->state, seat, legal,
		    GAME_MAX_ACTIONS);
		table_brief(table, -1, &brief);
		return n < brief.cards + 1;
	case PHASE_PLAY:
		return table->impl->hand_hidden != NULL &&
		    table->impl->hand_hidden(table->game->state, seat);
	default:
		return 0;
	}
}

/*
 * The different cards in a seat's hand: a Wizard hand may hold two
 * Wizards, which are one legal play.
 */
static int
distinct_cards(const struct game_brief *mine)
{
	int count = 0;

	for (int i = 0; i < mine->nhand; i++) {
		int k;

		for (k = 0; k < i; k++)
			if (strcmp(mine->hand[k], mine->hand[i]) == 0)
				break;
		if (k == i)
			count++;
	}
	return count;
}

/* Appends n card codes separated by spaces. */
static void
text_codes(struct text *t, const struct table *table, char (*codes)[4],
    int n)
{
	for (int i = 0; i < n; i++) {
		if (i > 0)
			text_add(t, " ");
		text_card(t, table_card_color(table, codes[i]), codes[i]);
	}
}

void
text_action_cards(struct text *t, const struct table *table,
    const struct action *action)
{
	char codes[GAME_MAX_PLAY][4];
	int n = action->ncards < GAME_MAX_PLAY ? action->ncards :
	    GAME_MAX_PLAY;

	for (int i = 0; i < n; i++)
		table->impl->format_card(action->cards[i], codes[i],
		    sizeof(codes[i]));
	text_codes(t, table, codes, n);
}

/*
 * What seat may do now, after the task in a private prompt: the cards or
 * bids allowed, "(any card)", how many cards with an example when there
 * are too many ways to list (BirdHead), or how to play blind
 * (clairvoyance).  view is seat's own view (borrowed).
 */
static void
text_moves_allowed(struct text *t, struct table *table, int seat,
    const struct game_brief *mine)
{
	enum lang lang = table_lang(table);
	enum game_phase phase = table->impl->phase(table->game->state);
	struct action legal[GAME_MAX_ACTIONS];
	int n = table->impl->legal(table->game->state, seat, legal,
	    GAME_MAX_ACTIONS);

	if (phase == PHASE_PLAY && mine->others_shown != 0) {
		/* Clairvoyance: naming the move would name the card. */
		text_add(t, " ");
		SAY(t, lang, MSG_PLAY_BLIND, "c", table_prefix(table));
	} else if (phase == PHASE_PLAY && n > 0 && n == distinct_cards(mine) &&
	    table->impl->max_play_cards == 1) {
		/* Any card will do: the hand above says it all. */
		text_add(t, " ");
		SAY0(t, lang, MSG_ANY_CARD);
	} else if (phase == PHASE_PLAY && n > 0 && n <= 16) {
		text_add(t, ":");
		for (int i = 0; i < n; i++) {
			text_add(t, i > 0 ? ", " : " ");
			text_action_cards(t, table, &legal[i]);
		}
	} else if (phase == PHASE_PLAY && n > 16) {
		/*
		 * Too many combinations to list (BirdHead): how many
		 * cards to play, and one legal example.
		 */
		int lo = GAME_MAX_PLAY, hi = 0;
		struct text count, example;

		for (int i = 0; i < n; i++) {
			lo = legal[i].ncards < lo ? legal[i].ncards : lo;
			hi = legal[i].ncards > hi ? legal[i].ncards : hi;
		}
		text_init(&count);
		text_init(&example);
		if (lo == hi)
			text_printf(&count, "%d", lo);
		else
			text_printf(&count, "%d-%d", lo, hi);
		text_action_cards(&example, table, &legal[0]);
		text_add(t, " ");
		SAY(t, lang, MSG_PLAY_COUNT, "rr", text_str(&count),
		    text_str(&example));
		text_finish(&count);
		text_finish(&example);
	} else if ((phase == PHASE_BID ||
	    phase == PHASE_BID_SIMULTANEOUS) && n > 0) {
		text_add(t, ":");
		for (int i = 0; i < n; i++)
			text_printf(t, " %d", legal[i].value);
	}
}

static void send_hand(struct table *, int, int);

/* Sends seat's owner their hand privately, while they play the seat. */
void
table_send_hand(struct table *table, int seat, int prompt)
{
	if (table->game == NULL || !seat_is_human(&table->seats[seat]))
		return;
	send_hand(table, seat, prompt);
}

void
table_show_hand(struct table *table, int seat)
{
	if (table->game == NULL || table->seats[seat].computer)
		return;
	send_hand(table, seat, 1);
}

void
table_private_lost(struct table *table, int seat)
{
	struct text t;
	int round;

	if (table->game == NULL || seat < 0 || seat >= table->nseats ||
	    !seat_is_human(&table->seats[seat]))
		return;
	/*
	 * Once a round at most: a client that rejects every invitation
	 * must not make the bot open room after room, nor fill the channel.
	 */
	round = table->impl->round(table->game->state);
	if (round != table->lost_round) {
		table->lost_round = round;
		table->lost_told = 0;
	}
	if (table->lost_told & (1u << seat))
		return;
	table->lost_told |= 1u << seat;
	/* Stored before it is said: a restart in the round asks no more. */
	table_lost_store(table);
	text_init(&t);
	text_seat(&t, table, seat, 1);
	SAY(&t, table_lang(table), MSG_PRIVATE_LOST, "c", table_prefix(table));
	channel_send(table->channel, &t);
	text_finish(&t);
	/* Lost while the bot was away: the resume sends everyone's hand. */
	if (table->unresumed)
		table->hands_owed = 1;
	else
		send_hand(table, seat, 1);
}

/*
 * The hand line to the owner of seat (never a computer's own seat), with
 * what they may do when it is their turn, and how to take the seat back
 * while a computer plays it.
 */
static void
send_hand(struct table *table, int seat, int prompt)
{
	struct seat *s = &table->seats[seat];
	enum lang lang = table_lang(table);
	struct game_brief mine, open;
	unsigned bit = 1u << seat;
	struct text t;
	enum game_phase phase;

	table_brief(table, seat, &mine);
	phase = table->impl->phase(table->game->state);
	text_init(&t);
	text_table_tag(&t, table);
	SAY(&t, lang, MSG_HAND_HEADER, "d", table->impl->round(table->game->state) + 1);
	text_add(&t, " ");
	if (mine.others_shown != 0) {
		int first = 1;

		SAY0(&t, lang, MSG_HAND_CLAIRVOYANT);
		for (int other = 0; other < table->nseats; other++) {
			if (!(mine.others_shown & (1u << other)))
				continue;
			text_add(&t, first ? " " : ", ");
			first = 0;
			text_bold(&t, table_seat_name(table, other));
			text_add(&t, " ");
			/* Played already: said, not left blank. */
			if (mine.nothers[other] == 0)
				SAY0(&t, lang, MSG_HAND_EMPTY);
			else
				text_codes(&t, table, mine.others[other],
				    mine.nothers[other]);
		}
	} else if (mine.nhand == 0) {
		SAY0(&t, lang, MSG_HAND_EMPTY);
	} else {
		text_codes(&t, table, mine.hand, mine.nhand);
	}
	if (mine.trump[0] != '\0') {
		text_add(&t, " · ");
		SAY0(&t, lang, MSG_TRUMP_WORD);
		text_add(&t, " ");
		text_card(&t, mine.trump[0], mine.trump);
	}
	/*
	 * A bid only its owner may see (secret, or one a computer made for
	 * them): the owner always sees it.
	 */
	table_brief(table, -1, &open);
	if ((mine.bid_shown & bit) && !(open.bid_shown & bit)) {
		text_add(&t, " · ");
		SAY(&t, lang, MSG_YOUR_BID, "d", mine.bid[seat]);
	}
	if (prompt && phase != PHASE_OVER && seat_to_act(table, seat)) {
		text_add(&t, " · ");
		text_task(&t, table, phase);
		text_moves_allowed(&t, table, seat, &mine);
	}
	if (s->standin) {
		text_add(&t, " · ");
		SAY(&t, lang, MSG_STANDIN_NOTE, "c", table_prefix(table));
	}
	network_send_private(table->channel->network, s->user_id,
	    table->channel->name, &t);
	text_finish(&t);
}

/* "Round 3/15", or "Round 3" where the game has no fixed length. */
void
say_round(struct text *out, enum lang lang, const json_t *view)
{
	int round = (int)json_integer_value(json_object_get(view, "round"));
	json_t *rounds = json_object_get(view, "rounds");

	if (json_is_integer(rounds))
		SAY(out, lang, MSG_ROUND_START, "dd", round,
		    (int)json_integer_value(rounds));
	else
		SAY(out, lang, MSG_ROUND_ONLY, "d", round);
}

static void say_secret_hint(struct table *, enum game_phase, struct text *);

/* "Round 3/15 · dealer Bob · trump r (turned r7)" and the like. */
void
announce_round(struct table *table, struct text *out)
{
	json_t *view = table_public_view(table);
	enum lang lang = table_lang(table);
	json_t *turned = json_object_get(view, "turned");
	json_t *trump = json_object_get(view, "trump");
	json_t *dealer = json_object_get(view, "dealer");
	enum game_phase phase = table->impl->phase(table->game->state);

	if (out->len > 0)
		text_add(out, "\n");
	say_round(out, lang, view);
	if (json_is_integer(json_object_get(view, "cards"))) {
		text_add(out, " · ");
		SAY(out, lang, MSG_CARDS_EACH, "d", (int)json_integer_value(json_object_get(view, "cards")));
	}
	if (json_is_integer(dealer)) {
		text_add(out, " · ");
		SAY0(out, lang, MSG_DEALER_WORD);
		text_add(out, " ");
		text_bold(out, table_seat_name(table, (int)json_integer_value(dealer)));
	}
	if (json_is_string(turned)) {
		const char *code = json_string_value(turned);

		text_add(out, " · ");
		SAY0(out, lang, MSG_TURNED_WORD);
		text_add(out, " ");
		text_card(out, table_card_color(table, code), code);
	}
	if (json_is_string(trump)) {
		const char *code = json_string_value(trump);

		text_add(out, " · ");
		SAY0(out, lang, MSG_TRUMP_WORD);
		text_add(out, " ");
		text_card(out, code[0], code);
	} else if (json_object_get(view, "trump") != NULL &&
	    phase != PHASE_TRUMP) {
		text_add(out, " · ");
		SAY0(out, lang, MSG_NO_TRUMP);
	}
	say_secret_hint(table, phase, out);
}

/*
 * " · bids are hidden: send yours to me privately (bid N)" and the like,
 * when phase asks everybody for a secret move: at the deal, or once the
 * dealer has chosen trump.  Where one person reads the table, a private
 * line is typed bare.
 */
static void
say_secret_hint(struct table *table, enum game_phase phase, struct text *out)
{
	enum lang lang = table_lang(table);

	if (phase == PHASE_BID_SIMULTANEOUS) {
		text_add(out, " · ");
		SAY(out, lang, channel_reader(table->channel) != NULL ?
		    MSG_BIDS_HIDDEN_TYPE : MSG_BIDS_HIDDEN, "cs",
		    table_prefix(table), bot_self_name(table->channel->network,
		    lang));
	} else if (phase == PHASE_SELECT) {
		text_add(out, " · ");
		SAY(out, lang, channel_reader(table->channel) != NULL ?
		    MSG_SELECT_TYPE : MSG_SELECT_PRIVATELY, "cs",
		    table_prefix(table), bot_self_name(table->channel->network,
		    lang));
	}
}

/*
 * "alice bids 2" (or "has bid" when bids are hidden), and once bidding
 * is over the bids everyone may see with their sum.
 */
static void
announce_bid(struct table *table, int seat, const struct action *action,
    enum game_phase before, const struct game_brief *brief, struct text *out)
{
	enum lang lang = table_lang(table);
	enum game_phase phase = table->impl->phase(table->game->state);

	if (before == PHASE_BID_SIMULTANEOUS) {
		int acting[GAME_MAX_SEATS];
		int left = phase == PHASE_BID_SIMULTANEOUS ?
		    table->impl->to_act(table->game->state, acting) : 0;

		SAY(out, lang, table_seat_msg(table, seat, MSG_HAS_BID,
		    MSG_YOU_HAVE_BID), "bd", table_seat_name(table,
		    seat), left);
	} else {
		SAY(out, lang, table_seat_msg(table, seat, MSG_BIDS, MSG_YOU_BID), "bd",
		    table_seat_name(table, seat), action->value);
	}
	if (phase != PHASE_BID && phase != PHASE_BID_SIMULTANEOUS) {
		/* Bidding is over: the bids (where public). */
		int sum = 0, shown = 0;

		for (int i = 0; i < table->nseats; i++) {
			if (!(brief->bid_shown & (1u << i)))
				continue;
			text_add(out, shown++ ? ", " : " · ");
			text_bold(out, table_seat_name(table, i));
			text_printf(out, " %d", brief->bid[i]);
			sum += brief->bid[i];
		}
		if (shown > 0) {
			text_add(out, " · ");
			SAY(out, lang, MSG_BID_SUM, "dd", sum, brief->cards);
		}
	}
}

/* The line that tells the channel what seat did. */
int
announce_action(struct table *table, int seat, const struct action *action,
    enum game_phase before, const struct game_round *ended, struct text *out)
{
	enum lang lang = table_lang(table);
	enum game_phase phase = table->impl->phase(table->game->state);
	struct game_brief brief;
	int completed = 0;
	char code[8];

	table_brief(table, -1, &brief);
	if (out->len > 0)
		text_add(out, "\n");
	switch (action->kind) {
	case ACTION_BID:
		announce_bid(table, seat, action, before, &brief, out);
		break;
	case ACTION_TRUMP:
		/* The suit chosen, as the engine now shows trump. */
		SAY(out, lang, table_seat_msg(table, seat, MSG_CHOOSES_TRUMP,
		    MSG_YOU_CHOOSE_TRUMP), "b", table_seat_name(table, seat));
		if (brief.trump[0] != '\0') {
			text_add(out, " ");
			text_card(out, brief.trump[0], brief.trump);
		}
		/* Hidden bids begin now: say how, as a deal would have. */
		say_secret_hint(table, phase, out);
		break;
	case ACTION_SELECT:
		if (phase == PHASE_SELECT) {
			int acting[GAME_MAX_SEATS];

			SAY(out, lang, table_seat_msg(table, seat, MSG_HAS_SELECTED,
			    MSG_YOU_HAVE_SELECTED), "bd", table_seat_name(table, seat), table->impl->to_act(
			    table->game->state, acting));
		} else {
			json_t *selected = json_object_get(
			    table_public_view(table), "selected");

			SAY(out, lang, table_seat_msg(table, seat, MSG_HAS_SELECTED,
			    MSG_YOU_HAVE_SELECTED), "bd", table_seat_name(table, seat), 0);
			text_add(out, " · ");
			SAY0(out, lang, MSG_PENALTY_CARDS);
			for (int i = 0; i < table->nseats; i++) {
				const char *c = json_string_value(
				    json_array_get(selected, (size_t)i));

				text_add(out, i > 0 ? ", " : " ");
				text_bold(out, table_seat_name(table, i));
				text_add(out, " ");
				if (c != NULL)
					text_card(out, table_card_color(table, c), c);
			}
		}
		break;
	case ACTION_PLAY:
		text_bold(out, table_seat_name(table, seat));
		text_add(out, " ");
		for (int i = 0; i < action->ncards; i++) {
			if (i > 0)
				text_add(out, " ");
			table->impl->format_card(action->cards[i], code,
			    sizeof(code));
			text_card(out, table_card_color(table, code), code);
		}
		/*
		 * A play that leaves no trick on the table completed one:
		 * its winner leads next, or (the round over) ends the
		 * result's last trick.
		 */
		if (brief.trick == 0) {
			int winner = ended != NULL ? ended->last_winner :
			    brief.leader;

			completed = 1;
			text_add(out, " · ");
			SAY(out, lang, table_seat_msg(table, winner, MSG_TAKES_TRICK,
			    MSG_YOU_TAKE_TRICK), "b", table_seat_name(table, winner));
			/* One line per play: the standings join the trick's. */
			if (phase == PHASE_PLAY) {
				text_add(out, " — ");
				table_player_lines(table, out);
			}
		}
		break;
	default:
		break;
	}
	return completed;
}

/*
 * Who left the game at the end of the round just over (Wizard's nannie):
 * the eliminated seats that played exactly its rounds.
 */
static void
say_eliminated(struct table *table, const struct game_brief *brief,
    enum lang lang, struct text *out)
{
	for (int s = 0; s < table->nseats; s++) {
		if (!(brief->eliminated & (1u << s)) ||
		    brief->played[s] != table->round_seen + 1)
			continue;
		text_add(out, " · ");
		SAY0(out, lang, MSG_ELIMINATED);
		text_add(out, " ");
		text_bold(out, table_seat_name(table, s));
	}
}

/*
 * The round's end: BirdHead's reveal and losers, who leaves the game,
 * then the score sheet.
 */
void
announce_round_end(struct table *table, const struct game_round *round,
    struct text *out)
{
	enum lang lang = table_lang(table);
	struct game_brief brief;

	table_brief(table, -1, &brief);
	text_add(out, "\n");
	SAY(out, lang, MSG_ROUND_OVER, "d", table->round_seen + 1);
	say_eliminated(table, &brief, lang, out);
	if (round->has_losers) {
		int first = 1;

		if (brief.nrevealed > 0) {
			text_add(out, " ");
			SAY0(out, lang, MSG_REVEALED);
			for (int s = 0; s < brief.nrevealed; s++) {
				text_add(out, s > 0 ? ", " : " ");
				text_bold(out, table_seat_name(table, s));
				text_add(out, " ");
				text_card(out, '0', brief.revealed[s]);
			}
		}
		text_add(out, " · ");
		SAY0(out, lang, MSG_LOSERS);
		for (int s = 0; s < table->nseats; s++) {
			if (!(round->losers & (1u << s)))
				continue;
			text_add(out, first ? " " : ", ");
			first = 0;
			text_bold(out, table_seat_name(table, s));
		}
	}
	text_add(out, "\n");
	round_sheet(table, out);
}

void
announce_game_end(struct table *table, json_t *result, struct text *out)
{
	enum lang lang = table_lang(table);
	json_t *winners = json_object_get(result, "winners");
	json_t *scores = json_object_get(result, "scores");
	struct game_brief open;
	size_t i;
	json_t *v;

	text_add(out, "\n");
	SAY0(out, lang, MSG_GAME_OVER);
	json_array_foreach(winners, i, v) {
		int seat = (int)json_integer_value(v);

		text_add(out, i > 0 ? ", " : " ");
		text_seat(out, table, seat, 0);
		text_printf(out, " (%d)", (int)json_integer_value(
		    json_array_get(scores, (size_t)seat)));
	}
	table_brief(table, -1, &open);
	table_ranking(table, scores, &open, out);
}

void
text_play_hint(struct text *t, struct table *table)
{
	const struct game_present *present = table_present(table);
	struct game_brief brief;

	if (present == NULL || present->play_hint == NULL ||
	    table->impl->phase(table->game->state) != PHASE_PLAY)
		return;
	table_brief(table, -1, &brief);
	present->play_hint(t, table_lang(table), &brief);
}

void
table_tell(struct table *table, int seat, const struct text *what)
{
	if (seat < 0 || seat >= table->nseats ||
	    !seat_is_human(&table->seats[seat]))
		return;
	table_tell_owner(table, seat, what);
}

void
table_tell_owner(struct table *table, int seat, const struct text *what)
{
	struct text t;

	if (seat < 0 || seat >= table->nseats || table->seats[seat].computer)
		return;
	text_init(&t);
	text_table_tag(&t, table);
	text_append(&t, what);
	network_send_private(table->channel->network,
	    table->seats[seat].user_id, table->channel->name, &t);
	text_finish(&t);
}
