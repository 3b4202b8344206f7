/*
 * table_restore.c - a table rebuilt from the store: a running game
 * restored at start, and a table reloaded after a change could not be
 * committed (the store is the truth), then picked up again with a pause
 * that grows while the store keeps failing.
 *
 * Part of the table module (table_int.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "medium.h"
#include "record.h"
#include "loop.h"
#include "store.h"
#include "table_int.h"
#include "xmalloc.h"

/* What reload_game() and reload_lobby() look for, and found. */
struct reload {
	struct channel *channel;
	struct table *table;
	int found;
};

/* The key of a game's seats told they were unreachable (store kv). */
static void
lost_key(const struct table *table, char *key, size_t len)
{
	snprintf(key, len, "game:%lld:private_lost",
	    (long long)table->game_id);
}

void
table_lost_store(struct table *table)
{
	char key[64], value[64];

	if (table->game_id <= 0)
		return;
	lost_key(table, key, sizeof(key));
	snprintf(value, sizeof(value), "%d %u", table->lost_round,
	    table->lost_told);
	if (store_kv_set(table_bot(table)->store, key, value) != 0)
		log_error("%s %s: could not store who was asked to accept the "
		    "invitation", table->channel->network->adapter.network,
		    table->channel->name);
}

void
table_lost_load(struct table *table)
{
	char key[64], *value;
	unsigned told;
	int round;

	lost_key(table, key, sizeof(key));
	if ((value = store_kv_get(table_bot(table)->store, key)) == NULL)
		return;
	if (sscanf(value, "%d %u", &round, &told) == 2) {
		table->lost_round = round;
		table->lost_told = told;
	}
	free(value);
}

struct table *
table_restore(struct channel *channel, const struct store_game *stored,
    char *err, size_t errlen)
{
	json_t *actions = json_object_get(stored->record, "actions");
	struct game *game;
	struct table *table;
	size_t i, fi;
	json_t *a, *seat, *former;

	/* Its next rounds must deal as the ones before them. */
	if (stored->deal_version < 1 ||
	    stored->deal_version > GAME_DEAL_VERSION) {
		snprintf(err, errlen, "deal version %d is not one this "
		    "stichbot knows (1 to %d)", stored->deal_version,
		    GAME_DEAL_VERSION);
		return NULL;
	}
	game = game_from_record(stored->record, err, errlen);
	if (game == NULL)
		return NULL;
	game->deal_version = stored->deal_version;
	if (game_advance(game, err, errlen) != 0) {
		game_destroy(game);
		return NULL;
	}
	json_array_foreach(actions, i, a) {
		struct action action;

		if (action_from_json(game->impl, a, &action, err, errlen) != 0 ||
		    game_apply(game, &action, err, errlen) != 0) {
			game_destroy(game);
			return NULL;
		}
	}
	table = xcalloc(1, sizeof(*table));
	table->channel = channel;
	table->impl = game->impl;
	table->options = game->setup.options;
	table->game = game;
	table->game_id = stored->id;
	table->seed = stored->seed;
	/* Paused before the restart: the deadline the channel heard holds. */
	table->paused_until = stored->paused_until;
	table_lost_load(table);
	json_array_foreach(stored->seats, i, seat) {
		struct seat *s = &table->seats[table->nseats++];
		const char *id = json_string_value(json_object_get(seat,
		    "user_id"));
		const char *name = json_string_value(json_object_get(seat,
		    "name"));

		s->user_id = xstrdup(id != NULL ? id : "");
		medium_canonical_id(&channel->network->adapter, s->user_id);
		s->name = xstrdup(name != NULL ? name : "?");
		user_sat(channel, s->user_id);
		s->level = (int)json_integer_value(json_object_get(seat,
		    "level"));
		if (json_is_true(json_object_get(seat, "computer"))) {
			if (s->user_id[0] == '\0')
				s->computer = 1;
			else
				s->standin = 1;
		}
		/* Given up before the restart: still anyone's to take. */
		s->released = s->standin && json_is_true(json_object_get(seat,
		    "released"));
		s->stop_vote = json_is_true(json_object_get(seat, "stop_vote"));
		/* Who had it before still hears who has it now. */
		json_array_foreach(json_object_get(seat, "formers"), fi, former) {
			char *former_id;

			if (!json_is_string(former))
				continue;
			former_id = xstrdup(json_string_value(former));
			medium_canonical_id(&channel->network->adapter,
			    former_id);
			table_former_add(table, former_id, (int)i);
			/* A private command of theirs finds this table. */
			user_sat(channel, former_id);
			free(former_id);
		}
		if (i + 1 >= GAME_MAX_SEATS)
			break;
	}
	/* A seat the store could not give back would leave a hole. */
	if (table->nseats != game->setup.nseats) {
		snprintf(err, errlen, "%d seats stored for %d players",
		    table->nseats, game->setup.nseats);
		for (int k = 0; k < table->nseats; k++)
			seat_clear(table, &table->seats[k]);
		game_destroy(game);
		free(table);
		return NULL;
	}
	table->round_seen = game->impl->round(game->state);
	channel->table = table;
	return table;
}

const struct game_impl *
table_last_game(struct channel *channel, struct game_options *options)
{
	struct store *store = channel->network->bot->store;
	const char *network = channel->network->adapter.network;
	const struct game_impl *impl;
	char name[64], err[256];
	json_t *stored = NULL;

	if (channel->last_impl == NULL && !channel->last_read) {
		channel->last_read = 1;
		if (store_last_finished(store, network, channel->name, name,
		    sizeof(name), &stored) == 1) {
			/* A game or option this build no longer has: none. */
			if ((impl = game_find(name)) == NULL ||
			    game_options_from_json(impl, stored,
			    &channel->last_options, err, sizeof(err)) != 0)
				log_warn("%s %s: the last game's options are "
				    "not used (%s)", network, channel->name,
				    impl == NULL ? "no such game" : err);
			else
				channel->last_impl = impl;
		}
		json_decref(stored);
	}
	if (channel->last_impl != NULL)
		*options = channel->last_options;
	return channel->last_impl;
}

static int
reload_game(const struct store_game *stored, void *arg)
{
	struct reload *r = arg;
	char err[256];

	if (stored->finished != 0 || r->found ||
	    strcmp(stored->network, r->channel->network->adapter.network) != 0)
		return 0;
	r->found = 1;
	if ((r->table = table_restore(r->channel, stored, err,
	    sizeof(err))) == NULL)
		log_error("%s %s: game %lld cannot be read back: %s",
		    stored->network, stored->channel, (long long)stored->id,
		    err);
	return 0;
}

static int
reload_lobby(const char *network, const char *channel, const char *lobby,
    void *arg)
{
	struct reload *r = arg;
	char err[256];

	if (r->found || strcmp(network, r->channel->network->adapter.network)
	    != 0 || strcmp(channel, r->channel->name) != 0)
		return 1;
	r->found = 1;
	if ((r->table = table_lobby_load(r->channel, lobby, err,
	    sizeof(err))) == NULL)
		log_error("%s %s: the stored lobby cannot be read back: %s",
		    network, channel, err);
	return 0;
}

static void
retry_run(struct table *table)
{
	table->retry_timer = 0;
	if (table->game != NULL && table_deal_pending(table) != 0) {
		table_retry(table);
		return;
	}
	if (table->game != NULL)
		table_next(table);
}

static void
retry_cb(struct loop *loop, uint64_t id, void *arg)
{
	table_event(arg, retry_run);
}

void
table_retry(struct table *table)
{
	struct bot *bot = table_bot(table);
	int failures = table->channel->store_failures;
	uint64_t delay = (uint64_t)bot->computer_delay_ms << (failures < 6 ?
	    failures : 6);

	if (delay > 60000)
		delay = 60000;
	loop_cancel(bot->loop, table->retry_timer);
	table_timer_cancel(table);
	table->retry_timer = loop_timer(bot->loop, delay, retry_cb, table);
}

/*
 * A move that could not be stored did not happen: the player is told
 * (a computer's table once, until something is stored again), and the
 * game is picked up again after a pause that grows while the store
 * keeps failing, unless it failed for good (bot_check_store()).
 */
void
table_not_stored(struct table *table, int flags, struct text *reply)
{
	struct channel *channel = table->channel;
	/* A store failed for good: tables hear so (bot_check_store()). */
	int lost = store_failed(table_bot(table)->store) != NULL;

	if (!(flags & ACT_COMPUTER)) {
		SAY0(reply, table_lang(table), lost ? MSG_NOT_SAVED_LOST :
		    MSG_NOT_SAVED);
	} else if (!lost && channel->store_failures == 0) {
		struct text t;

		text_init(&t);
		SAY0(&t, table_lang(table), MSG_NOT_SAVED);
		channel_send(channel, &t);
		text_finish(&t);
	}
	channel->store_failures++;
	if (!table_bot(table)->store_lost)
		table_retry(table);
}

void
table_reload(struct channel *channel)
{
	struct bot *bot = channel->network->bot;
	struct reload r = { channel, NULL, 0 };
	struct table *old = channel->table;
	struct text t;

	/* Detached first: destroying it must not part the channel. */
	channel->table = NULL;
	table_destroy(old);
	if (store_each_game(bot->store, channel->name, 0, 1, reload_game,
	    &r) < 0 || (!r.found && store_each_lobby(bot->store, reload_lobby,
	    &r) < 0))
		log_error("%s %s: the store cannot be read; the table is "
		    "gone until a restart", channel->network->adapter.network,
		    channel->name);
	/*
	 * Told once until something is stored again (the person who acted
	 * hears it each time: on_message()).  A store lost for good was told
	 * already (bot_check_store()), and the table waits for a restart.
	 */
	if (!bot->store_lost && channel->store_failures++ == 0) {
		text_init(&t);
		SAY0(&t, channel->settings.lang, MSG_NOT_SAVED);
		channel_send(channel, &t);
		text_finish(&t);
		bot->not_saved_told = 1;
	}
	if (r.table == NULL)
		return;
	if (bot->store_lost) {
		table_hold(r.table);
		return;
	}
	if (r.table->game == NULL) {
		table_idle_arm(r.table);
	} else {
		/*
		 * The state read back is the one before the refused change,
		 * whose prompt the channel (and each player) already has.
		 */
		table_prompt_heard(r.table);
		table_retry(r.table);
	}
}
