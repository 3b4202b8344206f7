/*
 * table_seats.c - who sits at a table: the lobby and its seats, taking a
 * seat, leaving it and coming back, computers, the game and options of a
 * lobby, votes, renames; a game with nobody seated, which pauses and
 * closes at a stored deadline; and reading a table (table.h's accessors).
 *
 * Part of the table module (table_int.h): table.c runs the game, this
 * file changes the seats, each change stored before it is said.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "loop.h"
#include "medium.h"
#include "store.h"
#include "table_int.h"
#include "xmalloc.h"

/*
 * A lobby as stored: {"game": "wizard", "options": {"rounds": 5},
 * "seats": [{"id": "...", "name": "...", "computer": false, "level": 1}]}.
 * A seat whose holder voted to close the lobby also has "stop_vote": true
 * (the channel heard the count; a restart keeps it).  Options are written
 * as in records (RECORD.md), by name, so a lobby stored by an older
 * stichbot reads the same.
 */
static char *
lobby_json(const struct table *table)
{
	json_t *root = json_object();
	json_t *options = game_options_to_json(table->impl, &table->options);
	json_t *seats = json_array();
	char *text = NULL;

	if (root == NULL || options == NULL || seats == NULL)
		goto out;
	for (int i = 0; i < table->nseats; i++) {
		const struct seat *seat = &table->seats[i];
		json_t *item = json_pack("{s:s, s:s, s:b, s:i}",
		    "id", seat->user_id != NULL ? seat->user_id : "",
		    "name", seat->name != NULL ? seat->name : "",
		    "computer", seat->computer, "level", seat->level);

		if (item != NULL && seat->stop_vote)
			json_object_set_new(item, "stop_vote", json_true());
		json_array_append_new(seats, item);
	}
	json_object_set_new(root, "game", json_string(table->impl->name));
	json_object_set(root, "options", options);
	json_object_set(root, "seats", seats);
	text = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS);
out:
	json_decref(options);
	json_decref(seats);
	json_decref(root);
	return text;
}

void
table_lobby_save(struct table *table)
{
	struct channel *channel = table->channel;
	char *text;

	if (table->game != NULL)
		return;
	if ((text = lobby_json(table)) == NULL) {
		log_error("%s %s: out of memory saving the lobby",
		    channel->network->adapter.network, channel->name);
		return;
	}
	if (table->lobby_saved != NULL &&
	    strcmp(table->lobby_saved, text) == 0) {
		free(text);
		return;
	}
	/* Not stored: the next change tries again; the lobby goes on. */
	if (store_lobby_put(table_bot(table)->store,
	    channel->network->adapter.network, channel->name, text) != 0) {
		free(text);
		return;
	}
	free(table->lobby_saved);
	table->lobby_saved = text;
}

struct table *
table_lobby_load(struct channel *channel, const char *lobby, char *err,
    size_t errlen)
{
	const struct game_impl *impl;
	struct game_options options;
	struct table *table = NULL;
	const json_t *seats, *item;
	const char *game;
	json_error_t jerr;
	json_t *root;
	size_t i;

	if ((root = json_loads(lobby, 0, &jerr)) == NULL) {
		snprintf(err, errlen, "not JSON: %s", jerr.text);
		return NULL;
	}
	game = json_string_value(json_object_get(root, "game"));
	seats = json_object_get(root, "seats");
	if ((impl = game_find(game != NULL ? game : "")) == NULL) {
		snprintf(err, errlen, "unknown game");
		goto out;
	}
	if (!json_is_array(seats) || json_array_size(seats) >
	    (size_t)impl->max_seats) {
		snprintf(err, errlen, "seats: expected at most %d",
		    impl->max_seats);
		goto out;
	}
	if (game_options_from_json(impl, json_object_get(root, "options"),
	    &options, err, errlen) != 0 ||
	    impl->validate_options(&options, 0, err, errlen) != 0)
		goto out;
	if ((table = table_create(channel, impl)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	table->options = options;
	json_array_foreach(seats, i, item) {
		struct seat *seat = &table->seats[table->nseats];
		const char *id = json_string_value(json_object_get(item, "id"));
		const char *name = json_string_value(json_object_get(item,
		    "name"));
		int level = (int)json_integer_value(json_object_get(item,
		    "level"));

		seat->computer = json_is_true(json_object_get(item,
		    "computer"));
		if (id == NULL || name == NULL || name[0] == '\0' ||
		    (!seat->computer && id[0] == '\0')) {
			snprintf(err, errlen, "seats[%zu]: expected an id and a "
			    "name", i);
			goto fail;
		}
		seat->level = level >= AI_EASY && level <= AI_HARD ? level :
		    AI_NORMAL;
		seat->stop_vote = !seat->computer && json_is_true(
		    json_object_get(item, "stop_vote"));
		seat->user_id = xstrdup(id);
		medium_canonical_id(&channel->network->adapter, seat->user_id);
		seat->name = xstrdup(name);
		table->nseats++;
		if (!seat->computer)
			user_sat(channel, seat->user_id);
	}
	table->lobby_saved = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS);
	goto out;
fail:
	seat_clear(table, &table->seats[table->nseats]);
	table_destroy(table);
	table = NULL;
out:
	json_decref(root);
	return table;
}

int
table_seat_of(const struct table *table, const char *user_id)
{
	for (int i = 0; i < table->nseats; i++)
		if (!table->seats[i].computer &&
		    strcmp(table->seats[i].user_id, user_id) == 0)
			return i;
	return -1;
}

/* Whether seat shows name followed by the user id that tells it apart. */
static int
called_apart(const struct seat *seat, const char *name, size_t len)
{
	return !seat->computer && strncasecmp(seat->name, name, len) == 0 &&
	    strncmp(seat->name + len, " (", 2) == 0;
}

/*
 * A seat by its owner's user id, by the name it shows (any case), or by
 * that name without the user id that tells two people apart ("Sam" for
 * "Sam (@bob:x)", a Matrix display name shared).  -1 when no seat goes
 * by name, -2 when several do: a command must not pick one of two Sams
 * (or a person called CPU2 and the computer CPU2) by their order.
 */
int
table_seat_by_name(const struct table *table, const char *name)
{
	size_t len = strlen(name);
	int exact = -1, nexact = 0, apart = -1, napart = 0;

	for (int i = 0; i < table->nseats; i++) {
		const struct seat *seat = &table->seats[i];

		if (!seat->computer && strcmp(seat->user_id, name) == 0)
			return i;
		if (strcasecmp(seat->name, name) == 0)
			exact = i, nexact++;
		else if (called_apart(seat, name, len))
			apart = i, napart++;
	}
	if (nexact > 0)
		return nexact > 1 ? -2 : exact;
	return napart > 1 ? -2 : apart;
}

int
table_lobby_remove(struct table *table, int seat, struct text *out)
{
	enum lang lang = table_lang(table);

	SAY(out, lang, table_seat_msg(table, seat, MSG_LEFT_LOBBY, MSG_YOU_LEAVE),
	    "b", table_seat_name(table, seat));
	seat_clear(table, &table->seats[seat]);
	memmove(&table->seats[seat], &table->seats[seat + 1],
	    (size_t)(table->nseats - seat - 1) * sizeof(table->seats[0]));
	table->nseats--;
	memset(&table->seats[table->nseats], 0, sizeof(table->seats[0]));
	if (table_humans(table) > 0)
		return 0;
	text_add(out, " ");
	SAY0(out, lang, MSG_TABLE_CLOSED);
	table_close(table, 0);
	return 1;
}

int
table_humans(const struct table *table)
{
	int n = 0;

	for (int i = 0; i < table->nseats; i++)
		if (!table->seats[i].computer)
			n++;
	return n;
}

/* The store's picture of a seat. */
void
seat_store(const struct seat *seat, struct store_seat *out)
{
	out->user_id = seat->user_id;
	out->name = seat->name;
	out->computer = seat->computer || seat->standin;
	out->level = seat->level;
	out->released = seat->standin && seat->released;
	out->stop_vote = seat->stop_vote;
	out->formers = NULL;
}

/* The ids whose seat this was, as JSON array text (caller frees), or NULL. */
static char *
formers_json(const struct table *table, int seat)
{
	json_t *list = json_array();
	char *text = NULL;

	for (int i = 0; i < table->nformers && list != NULL; i++)
		if (table->formers[i].seat == seat)
			json_array_append_new(list,
			    json_string(table->formers[i].user_id));
	if (list != NULL && json_array_size(list) > 0)
		text = json_dumps(list, JSON_COMPACT);
	json_decref(list);
	return text;
}

int
table_seat_changed(struct table *table, int seat)
{
	struct store_seat holder;
	char *formers;
	int rc;

	if (table->game == NULL) {
		table_lobby_save(table);
		return 0;
	}
	seat_store(&table->seats[seat], &holder);
	holder.formers = formers = formers_json(table, seat);
	rc = store_seat(table_bot(table)->store, table->game_id, seat,
	    &holder);
	free(formers);
	if (rc != 0) {
		log_error("%s %s: could not store seat %d of game %lld",
		    table->channel->network->adapter.network,
		    table->channel->name, seat, (long long)table->game_id);
		return -1;
	}
	return 0;
}

/*
 * Whether shown is another seat's name at table, or the name before (of
 * the seat's former holder; NULL: none) with or without the user id that
 * told it apart.
 */
static int
name_taken(const struct table *table, const struct seat *seat,
    const char *shown, const char *before)
{
	size_t len = strlen(shown);

	if (before != NULL && strncasecmp(before, shown, len) == 0 &&
	    (before[len] == '\0' || strncmp(before + len, " (", 2) == 0))
		return 1;
	for (int i = 0; i < table->nseats; i++)
		if (&table->seats[i] != seat && table->seats[i].name != NULL &&
		    strcasecmp(table->seats[i].name, shown) == 0)
			return 1;
	return 0;
}

/*
 * A copy of a person's id and shown name into a seat of table.  A name
 * another seat shows (a person called CPU1 beside the computer CPU1), or
 * the former holder's (before: a namesake taking a seat over), is told
 * apart by the user id, as Matrix clients tell namesakes apart.
 */
static void
seat_fill(struct table *table, struct seat *seat, const char *user_id,
    const char *name, const char *before)
{
	char *id = xstrdup(user_id), *shown = text_sanitize(name);

	if (shown[0] != '\0' && name_taken(table, seat, shown, before)) {
		struct text apart;

		text_init(&apart);
		text_add(&apart, shown);
		text_add(&apart, " (");
		text_user(&apart, user_id);
		text_add(&apart, ")");
		free(shown);
		shown = xstrdup(text_str(&apart));
		text_finish(&apart);
	}
	free(seat->user_id);
	free(seat->name);
	seat->user_id = id;
	seat->name = shown;
}

/*
 * A person takes the seat of a computer in a full lobby (the last one
 * seated), so that computers never keep people from a table.  -1 when
 * every seat holds a person.
 */
static int
join_bumping(struct table *table, const struct user *user, struct text *out)
{
	struct seat *s;
	char *before;
	int seat;

	for (seat = table->nseats - 1; seat >= 0; seat--)
		if (table->seats[seat].computer)
			break;
	if (seat < 0)
		return -1;
	s = &table->seats[seat];
	before = xstrdup(s->name);
	seat_fill(table, s, user->id, user->name, NULL);
	s->computer = 0;
	s->level = 0;
	user_sat(table->channel, s->user_id);
	SAY(out, table_lang(table), MSG_REPLACED, "bb", s->name, before);
	free(before);
	return 0;
}

int
table_join(struct table *table, const struct user *user, struct text *out)
{
	enum lang lang = table_lang(table);
	struct seat *seat;
	struct text title;

	if (table->nseats >= table->impl->max_seats) {
		if (table->game == NULL &&
		    join_bumping(table, user, out) == 0)
			return 0;
		SAY(out, lang, MSG_TABLE_FULL, "d", table->impl->max_seats);
		return -1;
	}
	seat = &table->seats[table->nseats];
	memset(seat, 0, sizeof(*seat));
	seat_fill(table, seat, user->id, user->name, NULL);
	table->nseats++;
	user_sat(table->channel, seat->user_id);
	text_init(&title);
	game_title(&title, lang, table->impl);
	SAY(out, lang, table_addressed(table, table->nseats - 1) ?
	    MSG_YOU_JOIN : MSG_JOINED, "brdddc", seat->name, text_str(&title),
	    table->nseats, table->impl->min_seats, table->impl->max_seats,
	    table_prefix(table));
	text_finish(&title);
	return 0;
}

int
table_add_computer(struct table *table, int level, struct text *out)
{
	enum lang lang = table_lang(table);
	struct seat *seat;
	char name[32];
	int n = 1;

	if (table->nseats >= table->impl->max_seats) {
		SAY(out, lang, MSG_TABLE_FULL, "d", table->impl->max_seats);
		return -1;
	}
	do
		snprintf(name, sizeof(name), "CPU%d", n++);
	while (table_seat_by_name(table, name) != -1);
	seat = &table->seats[table->nseats];
	memset(seat, 0, sizeof(*seat));
	seat_fill(table, seat, "", name, NULL);
	seat->computer = 1;
	seat->level = level;
	table->nseats++;
	SAY(out, lang, MSG_BOT_ADDED, "bsddd", name,
	    i18n_level(lang, level), table->nseats,
	    table->impl->min_seats, table->impl->max_seats);
	return 0;
}

int
table_set_game(struct table *table, const struct game_impl *impl,
    struct text *out)
{
	enum lang lang = table_lang(table);
	struct text title;

	if (table->impl != impl) {
		if (table->nseats > impl->max_seats) {
			SAY(out, lang, MSG_TABLE_FULL, "d", impl->max_seats);
			return -1;
		}
		table->impl = impl;
		memset(&table->options, 0, sizeof(table->options));
	}
	text_init(&title);
	game_title(&title, lang, impl);
	SAY(out, lang, MSG_GAME_SET, "rddc", text_str(&title),
	    impl->min_seats, impl->max_seats, table_prefix(table));
	text_finish(&title);
	return 0;
}

void
table_set_options(struct table *table, const struct game_options *options)
{
	table->options = *options;
}

int
table_replaceable(struct table *table, int seat, struct text *out)
{
	const struct seat *s = &table->seats[seat];
	enum lang lang = table_lang(table);

	if (s->computer)
		return 1;
	/* Still playing it; gone within the grace time is answered below. */
	if (!s->standin && !s->away) {
		SAY(out, lang, MSG_NOT_REPLACEABLE, "b", s->name);
		return 0;
	}
	/*
	 * Gone past the grace time, or given up (the channel was told that
	 * anyone may take it); an owner still here may only say back.
	 */
	if (s->standin && ((s->away && s->grace_until == 0) || s->released))
		return 1;
	SAY(out, lang, MSG_OWNER_HERE, "bc", s->name, table_prefix(table));
	return 0;
}

void
table_former_add(struct table *table, const char *user_id, int seat)
{
	struct former *f;

	for (int i = 0; i < table->nformers; i++) {
		if (strcmp(table->formers[i].user_id, user_id) == 0) {
			int before = table->formers[i].seat;

			table->formers[i].seat = seat;
			/* Its list no longer has them. */
			if (before != seat && table->game_id > 0)
				table_seat_changed(table, before);
			return;
		}
	}
	table->formers = xreallocarray(table->formers,
	    (size_t)table->nformers + 1, sizeof(*table->formers));
	f = &table->formers[table->nformers++];
	f->user_id = xstrdup(user_id);
	f->seat = seat;
}

int
table_former_seat(const struct table *table, const char *user_id)
{
	for (int i = 0; i < table->nformers; i++)
		if (strcmp(table->formers[i].user_id, user_id) == 0)
			return table->formers[i].seat;
	return -1;
}

int
table_say_taken(const struct table *table, const char *user_id,
    struct text *out)
{
	int seat;

	if (table->game == NULL || table_seat_of(table, user_id) >= 0 ||
	    (seat = table_former_seat(table, user_id)) < 0)
		return 0;
	SAY(out, table_lang(table), MSG_SEAT_TAKEN, "bc",
	    table->seats[seat].name, table_prefix(table));
	return 1;
}

int
table_take_over(struct table *table, int seat, const struct user *user,
    struct text *out)
{
	struct seat *s = &table->seats[seat];
	char *before = xstrdup(s->name);

	/* The owner who comes back hears who has their seat now. */
	if (!s->computer && s->user_id[0] != '\0')
		table_former_add(table, s->user_id, seat);
	seat_fill(table, s, user->id, user->name, s->computer ? NULL : before);
	SAY(out, table_lang(table), MSG_REPLACED, "bb", s->name, before);
	free(before);
	user_sat(table->channel, s->user_id);
	s->computer = s->standin = 0;
	s->missed = 0;
	s->away = s->released = 0;
	/* The vote was the former holder's. */
	s->stop_vote = 0;
	s->grace_until = 0;
	table_seat_changed(table, seat);
	table_send_hand(table, seat, 0);
	table_next(table);
	return 0;
}

int
table_back(struct table *table, int seat, struct text *out)
{
	struct seat *s = &table->seats[seat];

	if (s->grace_until != 0)
		table_grace(table, seat, -1);
	if (!s->standin) {
		if (out != NULL)
			SAY0(out, table_lang(table), MSG_NOT_AWAY);
		return -1;
	}
	s->standin = 0;
	s->missed = 0;
	s->released = 0;
	table_seat_changed(table, seat);
	/* Acting again is the clearest way of saying `back`: quietly. */
	if (out == NULL)
		return 0;
	/*
	 * The channel hears it, however it was said, and then whose turn it
	 * is (said again only when the turn line left the seat out while a
	 * computer held it): the welcome before the prompt it explains.
	 */
	{
		struct text t;

		text_init(&t);
		SAY(&t, table_lang(table), MSG_BACK, "b", s->name);
		table_next_text(table, &t);
		channel_send(table->channel, &t);
		text_finish(&t);
	}
	table_send_hand(table, seat, 0);
	return 0;
}

int
table_leave(struct table *table, int seat, struct text *out)
{
	if (table->game == NULL) {
		if (table_lobby_remove(table, seat, out) == 0)
			table_lobby_save(table);
		return 0;
	}
	if (table->seats[seat].standin) {
		struct seat *s = &table->seats[seat];

		if (s->released) {
			SAY0(out, table_lang(table), MSG_NOTHING_TO_DO);
			return -1;
		}
		/*
		 * A computer plays it already: now anyone may take it over,
		 * and a restart must keep that (stored before it is said).
		 */
		s->released = 1;
		table_seat_changed(table, seat);
		SAY(out, table_lang(table), MSG_STANDIN_LEFT, "bc", s->name,
		    table_prefix(table));
		return 0;
	}
	table_stand_in(table, seat, MSG_STANDIN_LEFT);
	table_next(table);
	return 0;
}

void
table_left_channel(struct table *table, int seat, int grace)
{
	struct channel *channel = table->channel;
	struct text t;

	if (table->game == NULL) {
		/*
		 * Someone who left cannot play: free their lobby seat.  The
		 * table may close with it, so the channel is kept first.
		 */
		text_init(&t);
		if (table_lobby_remove(table, seat, &t) == 0)
			table_lobby_save(table);
		channel_send(channel, &t);
		text_finish(&t);
		return;
	}
	/*
	 * Even a seat a computer plays already gets the grace time: a
	 * reconnect must not let a stranger take it over (replace).
	 */
	table->seats[seat].away = 1;
	if (table->seats[seat].grace_until != 0)
		return;
	table_grace(table, seat, grace);
}

void
table_joined_channel(struct table *table, int seat)
{
	table->seats[seat].away = 0;
	if (table->seats[seat].grace_until != 0)
		table_grace(table, seat, -1);
}

int
table_vote_stop(struct table *table, int seat, struct text *out)
{
	int votes = 0, humans = 0;

	/* Stored before the count is said: a restart keeps the vote. */
	if (!table->seats[seat].stop_vote) {
		table->seats[seat].stop_vote = 1;
		table_seat_changed(table, seat);
	}
	for (int i = 0; i < table->nseats; i++) {
		if (table->seats[i].computer || table->seats[i].standin)
			continue;
		humans++;
		votes += table->seats[i].stop_vote;
	}
	if (votes * 2 > humans)
		return 1;
	/* A lobby too is everyone's who sits at it: closing it is a vote. */
	SAY(out, table_lang(table), table->game == NULL ? MSG_CLOSE_VOTE :
	    table_addressed(table, seat) ? MSG_YOU_VOTE_STOP : MSG_STOP_VOTE,
	    "bddc", table->seats[seat].name, votes, humans / 2 + 1,
	    table_prefix(table));
	return 0;
}

void
table_rename(struct table *table, int seat, const struct user *now)
{
	seat_fill(table, &table->seats[seat], now->id, now->name, NULL);
	user_sat(table->channel, table->seats[seat].user_id);
	table_seat_changed(table, seat);
}

const struct game_impl *
table_impl(const struct table *table)
{
	return table->impl;
}

const struct game *
table_game(const struct table *table)
{
	return table->game;
}

int64_t
table_game_id(const struct table *table)
{
	return table->game != NULL ? table->game_id : 0;
}

const struct game_options *
table_options(const struct table *table)
{
	return &table->options;
}

int
table_nseats(const struct table *table)
{
	return table->nseats;
}

const struct seat *
table_seat(const struct table *table, int seat)
{
	return &table->seats[seat];
}

struct channel *
table_channel(const struct table *table)
{
	return table->channel;
}

int
table_unresumed(const struct table *table)
{
	return table->unresumed;
}
/* Deletes the stored lobby, if any (the table started or closed). */
void
lobby_forget(struct table *table)
{
	struct channel *channel = table->channel;

	if (table->lobby_saved == NULL)
		return;
	(void)store_lobby_delete(table_bot(table)->store,
	    channel->network->adapter.network, channel->name);
	free(table->lobby_saved);
	table->lobby_saved = NULL;
}

void
table_close(struct table *table, int abandoned)
{
	struct bot *bot = table_bot(table);

	lobby_forget(table);
	if (table->game != NULL && abandoned && table->game_id > 0) {
		table_forget_end(table);
		bot_log_stored(bot, "%s %s: game %lld stopped before its end",
		    table->channel->network->adapter.network,
		    table->channel->name, (long long)table->game_id);
	}
	if (table->game != NULL && abandoned && table->game_id > 0 &&
	    store_game_end(bot->store, table->game_id, NULL) != 0)
		log_error("%s %s: could not mark game %lld abandoned",
		    table->channel->network->adapter.network,
		    table->channel->name, (long long)table->game_id);
	table_destroy(table);
}

static void
lobby_idle_run(struct table *table)
{
	struct text t;

	table->idle_timer = 0;
	if (table->game != NULL)
		return;
	text_init(&t);
	SAY(&t, table_lang(table), MSG_LOBBY_IDLE_CLOSED, "d", table_bot(table)->lobby_idle / 60);
	channel_send(table->channel, &t);
	text_finish(&t);
	table_close(table, 0);
}

static void
lobby_idle_cb(struct loop *loop, uint64_t id, void *arg)
{
	table_event(arg, lobby_idle_run);
}

void
table_idle_arm(struct table *table)
{
	struct bot *bot = table_bot(table);

	if (table->idle_timer != 0)
		loop_cancel(bot->loop, table->idle_timer);
	table->idle_timer = 0;
	if (table->game == NULL && bot->lobby_idle > 0)
		table->idle_timer = loop_timer(bot->loop,
		    (uint64_t)bot->lobby_idle * 1000, lobby_idle_cb, table);
}

struct table *
table_restart(struct table *table, struct text *out)
{
	struct channel *channel = table->channel;
	struct seat seats[GAME_MAX_SEATS];
	struct game_options options = table->options;
	const struct game_impl *impl = table->impl;
	int n = table->nseats;

	/* The same people, game and options, dealt afresh. */
	for (int i = 0; i < n; i++) {
		seats[i] = table->seats[i];
		seats[i].user_id = xstrdup(table->seats[i].user_id);
		seats[i].name = xstrdup(table->seats[i].name);
		seats[i].grace_until = 0;
		seats[i].stop_vote = 0;
		seats[i].missed = 0;
	}
	table_close(table, 1);
	if ((table = table_create(channel, impl)) == NULL) {
		for (int i = 0; i < n; i++)
			seat_clear(NULL, &seats[i]);
		return NULL;
	}
	table->options = options;
	for (int i = 0; i < n; i++)
		table->seats[i] = seats[i];
	table->nseats = n;
	/* Said before the new game's first lines, not after them. */
	{
		struct text said;

		text_init(&said);
		SAY0(&said, table_lang(table), MSG_RESTARTED);
		channel_send(channel, &said);
		text_finish(&said);
	}
	table_start(table, out);
	return table;
}

/* Seats whose person is here (not played by a computer for them). */
static int
people_present(const struct table *table)
{
	int n = 0;

	for (int i = 0; i < table->nseats; i++)
		n += seat_is_human(&table->seats[i]);
	return n;
}

static void
abandon_run(struct table *table)
{
	struct text t;

	table->abandon_timer = 0;
	text_init(&t);
	SAY0(&t, table_lang(table), MSG_STOPPED);
	channel_send(table->channel, &t);
	text_finish(&t);
	bot_log_stored(table_bot(table),
	    "%s %s: game %lld closed: nobody played for %d minutes",
	    table->channel->network->adapter.network, table->channel->name,
	    (long long)table->game_id, table_bot(table)->lobby_idle / 60);
	table_close(table, 1);
}

static void
abandon_cb(struct loop *loop, uint64_t id, void *arg)
{
	table_event(arg, abandon_run);
}

/*
 * Keeps when the paused game closes (0: it goes on).  A store that fails
 * is logged; the deadline still holds until a restart.
 */
static void
pause_store(struct table *table, int64_t until)
{
	if (table->paused_until == until)
		return;
	table->paused_until = until;
	if (table->game_id > 0 && store_game_pause(table_bot(table)->store,
	    table->game_id, until) != 0)
		log_error("%s %s: could not store when game %lld closes",
		    table->channel->network->adapter.network,
		    table->channel->name, (long long)table->game_id);
}

/*
 * Computers never play to an empty room: with nobody seated (and no one
 * reading, as at the terminal) the game pauses between tricks (saying so
 * once) and closes, its record kept, after the lobby idle time; a person
 * taking a seat resumes it.
 */
int
table_paused(struct table *table, struct text *out)
{
	struct bot *bot = table_bot(table);
	struct game_brief brief;

	/* The terminal's reader watches even when a computer plays for them. */
	if (people_present(table) > 0 || channel_reader(table->channel) !=
	    NULL) {
		loop_cancel(bot->loop, table->abandon_timer);
		table->abandon_timer = 0;
		table->paused = 0;
		pause_store(table, 0);
		return 0;
	}
	table_brief(table, -1, &brief);
	if (brief.trick > 0)
		return 0;
	if (!table->paused) {
		int64_t now = loop_time(bot->loop), left;

		table->paused = 1;
		/* Once it goes on, whose turn it is is said again. */
		free(table->prompt_said);
		table->prompt_said = NULL;
		table->heard = 0;
		/*
		 * The deadline is stored before it is said; after a restart
		 * the one said before holds, and what is left of it is said.
		 */
		if (table->paused_until == 0)
			pause_store(table, now + bot->lobby_idle);
		left = table->paused_until > now ? table->paused_until - now :
		    0;
		if (out->len > 0)
			text_add(out, " · ");
		SAY(out, table_lang(table), MSG_NOBODY_SEATED, "cd",
		    table_prefix(table), left >= 90 ? (int)((left + 30) / 60) :
		    1);
		table->abandon_timer = loop_timer(bot->loop, (uint64_t)left *
		    1000, abandon_cb, table);
	}
	return 1;
}
