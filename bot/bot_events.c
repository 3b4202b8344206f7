/*
 * bot_events.c - what adapters tell the core: a line someone said, people
 * joining, leaving and changing names, a message sent, the connection
 * lost and back, a private channel lost.  Each is one event of the core (bot_enter/bot_leave):
 * what it changes is stored with what it makes the bot say.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot_int.h"
#include "log.h"
#include "loop.h"
#include "medium.h"
#include "outbox.h"
#include "store.h"

static struct network *
network_of(struct bot *bot, struct adapter *adapter)
{
	for (int i = 0; i < bot->nnetworks; i++)
		if (&bot->networks[i]->adapter == adapter)
			return bot->networks[i];
	return NULL;
}

/*
 * A user id as the core keeps it: valid UTF-8 without control bytes, so
 * that it can live in JSON (the store's seats) and in messages.  Other
 * bytes, and '%', become %XX: the mapping is one to one, so two people
 * never share an id.  Returns id itself when it is clean, buf when it was
 * escaped, NULL when it does not fit.
 */
static const char *
user_id_clean(const char *id, char *buf, size_t len)
{
	const char *p = id;
	size_t n = 0, k;

	/* Most ids are clean: returned as they are, uncopied. */
	while (*p != '\0' && *p != '%' && (k = text_char_length(p)) > 0)
		p += k;
	if (*p == '\0')
		return id;
	p = id;
	while (*p != '\0') {
		k = *p == '%' ? 0 : text_char_length(p);
		if (n + (k > 0 ? k : 3) + 1 > len)
			return NULL;
		if (k > 0) {
			memcpy(buf + n, p, k);
			n += k;
			p += k;
		} else {
			snprintf(buf + n, len - n, "%%%02X",
			    (unsigned char)*p++);
			n += 3;
		}
	}
	buf[n] = '\0';
	return buf;
}

/* A copy of who with a clean id (see above); 0, or -1 to ignore it. */
static int
user_clean(const struct user *who, struct user *out, char *buf, size_t len)
{
	if (who == NULL || who->id == NULL)
		return -1;
	*out = *who;
	if ((out->id = user_id_clean(who->id, buf, len)) == NULL)
		return -1;
	if (out->name == NULL)
		out->name = out->id;
	return 0;
}

/*
 * A seat follows its person's visible name: someone known by an account
 * who comes back under another nick is shown, and mentioned, by the nick
 * they use now.
 */
static void
follow_name(struct network *network, const struct user *user)
{
	struct channel *tables[16];
	int n = user_tables(network, user->id, tables, 16);

	for (int i = 0; i < n; i++) {
		struct table *table = tables[i]->table;
		int seat = table_seat_of(table, user->id);
		char *shown = text_sanitize(user->name);

		if (shown != NULL && shown[0] != '\0' &&
		    strcmp(shown, table_seat(table, seat)->name) != 0)
			table_rename(table, seat, user);
		free(shown);
	}
}

/*
 * What someone said changed something that could not be stored, so none
 * of it happened and nothing it caused was said, the reply included.
 * They are told, each time: a table hears it only once a streak
 * (table_reload()), and a refusal must never go unexplained.  Nothing
 * when a table was just told (that line, or that the store is lost for
 * good, bot_check_store()).
 */
static void
not_saved(struct network *network, struct channel *where,
    const struct user *from)
{
	struct bot *bot = network->bot;
	struct text t;

	if (bot->not_saved_told)
		return;
	text_init(&t);
	SAY0(&t, where != NULL ? where->settings.lang :
	    network->defaults.lang, bot->store_lost ? MSG_NOT_SAVED_LOST :
	    MSG_NOT_SAVED);
	network_send_private(network, from->id, NULL, &t);
	text_finish(&t);
}

/* A message, or an edit (edited: commands_handle()), heard in channel. */
static void
heard(struct bot *bot, struct adapter *adapter, const char *channel,
    const struct user *raw, const char *text, int edited)
{
	struct network *network = network_of(bot, adapter);
	struct channel *where = NULL;
	struct user clean, *from = &clean;
	char buf[512];

	if (network == NULL || text == NULL ||
	    user_clean(raw, &clean, buf, sizeof(buf)) != 0)
		return;
	if (channel != NULL && (where = channel_get(network, channel, 1)) ==
	    NULL)
		return;
	bot_enter(bot);
	follow_name(network, from);
	commands_handle(network, where, from, text, edited);
	if (bot_leave(bot) != 0)
		not_saved(network, where, from);
}

static void
on_message(void *data, struct adapter *adapter, const char *channel,
    const struct user *raw, const char *text)
{
	heard(data, adapter, channel, raw, text, 0);
}

static void
on_edited(void *data, struct adapter *adapter, const char *channel,
    const struct user *raw, const char *text)
{
	heard(data, adapter, channel, raw, text, 1);
}

static const struct seat *
seat_at(struct table *table, const char *user_id)
{
	int seat = table_seat_of(table, user_id);

	return seat >= 0 ? table_seat(table, seat) : NULL;
}

static void
on_join_event(struct bot *bot, struct adapter *adapter, const char *channel,
    const struct user *raw)
{
	struct network *network = network_of(bot, adapter);
	struct channel *where;
	const struct seat *seat;
	struct user clean, *who = &clean;
	char buf[512];

	if (network == NULL || channel == NULL ||
	    user_clean(raw, &clean, buf, sizeof(buf)) != 0)
		return;
	follow_name(network, who);
	if ((where = channel_get(network, channel, 0)) == NULL ||
	    where->table == NULL ||
	    (seat = seat_at(where->table, who->id)) == NULL)
		return;
	/* Back within the grace time: as if nothing happened. */
	table_joined_channel(where->table, table_seat_of(where->table,
	    who->id));
	if (seat->standin) {
		struct text t;

		text_init(&t);
		SAY(&t, where->settings.lang, MSG_WELCOME_BACK, "bc", seat->name,
		    where->settings.prefixes[0]);
		network_send_private(network, who->id, where->name, &t);
		text_finish(&t);
	}
}

static void
on_join(void *data, struct adapter *adapter, const char *channel,
    const struct user *raw)
{
	struct bot *bot = data;
	bot_enter(bot);
	on_join_event(bot, adapter, channel, raw);
	bot_leave(bot);
}

static void
leave_table(struct bot *bot, struct channel *channel, const char *user_id)
{
	struct table *table = channel->table;
	int seat;

	if (table != NULL && (seat = table_seat_of(table, user_id)) >= 0)
		table_left_channel(table, seat, bot->grace);
}

static void
on_leave_event(struct bot *bot, struct adapter *adapter, const char *channel,
    const struct user *raw)
{
	struct network *network = network_of(bot, adapter);
	struct user clean, *who = &clean;
	char buf[512];

	if (network == NULL || user_clean(raw, &clean, buf, sizeof(buf)) != 0)
		return;
	for (int c = 0; c < bot->nchannels; c++) {
		struct channel *ch = bot->channels[c];

		if (ch->network != network)
			continue;
		if (channel != NULL && !channel_name_equal(ch->name, channel))
			continue;
		leave_table(bot, ch, who->id);
	}
}

static void
on_leave(void *data, struct adapter *adapter, const char *channel,
    const struct user *raw)
{
	struct bot *bot = data;
	bot_enter(bot);
	on_leave_event(bot, adapter, channel, raw);
	bot_leave(bot);
}

static void
on_rename_event(struct bot *bot, struct adapter *adapter, const char *raw_old,
    const struct user *raw)
{
	struct network *network = network_of(bot, adapter);
	struct user clean, *now = &clean;
	char buf[512], oldbuf[512];
	const char *old_id;

	if (network == NULL || raw_old == NULL ||
	    user_clean(raw, &clean, buf, sizeof(buf)) != 0 ||
	    (old_id = user_id_clean(raw_old, oldbuf, sizeof(oldbuf))) == NULL)
		return;
	for (int c = 0; c < bot->nchannels; c++) {
		struct table *table = bot->channels[c]->table;
		int seat;

		if (bot->channels[c]->network != network || table == NULL ||
		    (seat = table_seat_of(table, old_id)) < 0)
			continue;
		table_rename(table, seat, now);
	}
}

static void
on_rename(void *data, struct adapter *adapter, const char *raw_old,
    const struct user *raw)
{
	struct bot *bot = data;
	bot_enter(bot);
	on_rename_event(bot, adapter, raw_old, raw);
	bot_leave(bot);
}

/*
 * A sent row is forgotten in a transaction of its own shortly after the
 * adapter reports it, not only with the next change: after a crash the
 * next run would otherwise say again lines the server took long before
 * (a table waiting for a slow player writes nothing for minutes).  The
 * delay gathers the rows of a burst into one write.
 */
#define SENT_FORGET_MS 250

static void
on_forget_sent(struct loop *loop, uint64_t id, void *arg)
{
	struct bot *bot = arg;

	(void)loop;
	(void)id;
	bot->forget_timer = 0;
	/* A failed write keeps the rows for the next one; it logged why. */
	if (bot->store != NULL)
		(void)store_flush(bot->store);
}

static void
on_sent(void *data, struct adapter *adapter, uint64_t id)
{
	struct bot *bot = data;

	(void)adapter;
	outbox_sent(bot->outbox, id);
	bot_clocks_check(bot);
	if (bot->forget_timer == 0 && bot->loop != NULL && id != 0)
		bot->forget_timer = loop_timer(bot->loop, SENT_FORGET_MS,
		    on_forget_sent, bot);
}

static void
on_connected(void *data, struct adapter *adapter, int up)
{
	struct bot *bot = data;
	struct network *network = network_of(bot, adapter);
	enum msg why;

	if (network == NULL)
		return;
	log_info("%s: %s", adapter->network, up ? "connected" :
	    "disconnected");
	if (up == network->up)
		return;
	network->up = up;
	/* The first time after a start, games resume where they stopped. */
	why = network->was_up ? MSG_RECONNECTED : MSG_RESUMED;
	if (up)
		network->was_up = 1;
	bot_enter(bot);
	for (int c = 0; c < bot->nchannels; c++) {
		struct channel *channel = bot->channels[c];
		struct table *table = channel->table;

		if (channel->network != network || table == NULL ||
		    table_game(table) == NULL)
			continue;
		if (!up) {
			/* Nobody can answer while we cannot hear them. */
			table_await_resume(table);
			continue;
		}
		/*
		 * A game started while the medium came up needs no resume;
		 * one whose channel keeps the bot out waits for its return.
		 */
		if (table_unresumed(table) && !channel->outside)
			table_resume(table, why);
	}
	bot_leave(bot);
}

/*
 * The bot was put out of a channel (in 0: a kick, a ban) or is back in it
 * (1).  While it is out nobody there hears the table, nor is heard: its
 * game waits, as in an outage (no clock, no computer moves).  Back, the
 * table says so, where the game stands and whom it waits for, whose
 * time starts then: what they said meanwhile never reached the bot.
 */
static void
on_inside(void *data, struct adapter *adapter, const char *name, int in)
{
	struct bot *bot = data;
	struct network *network = network_of(bot, adapter);
	struct channel *channel;
	struct table *table;

	if (network == NULL ||
	    (channel = channel_get(network, name, 0)) == NULL ||
	    (in && !channel->outside))
		return;
	channel->outside = !in;
	if ((table = channel->table) == NULL || table_game(table) == NULL)
		return;
	log_info("%s %s: %s", adapter->network, channel->name, in ?
	    "back in the channel; its game resumes" :
	    "put out of the channel; its game waits for the bot's return");
	bot_enter(bot);
	if (!in)
		table_await_resume(table);
	else if (network->up)
		table_resume(table, MSG_BACK_IN_CHANNEL);
	bot_leave(bot);
}

/*
 * What who was told privately may never have been read (they rejected or
 * left their direct room): every game where they sit tells them so and
 * sends their hand again (table_private_lost).
 */
static void
on_private_lost(void *data, struct adapter *adapter, const struct user *raw)
{
	struct bot *bot = data;
	struct network *network = network_of(bot, adapter);
	struct channel *tables[16];
	struct user clean;
	char buf[512];
	int n;

	if (network == NULL || user_clean(raw, &clean, buf, sizeof(buf)) != 0)
		return;
	bot_enter(bot);
	n = user_tables(network, clean.id, tables, 16);
	for (int i = 0; i < n; i++) {
		struct table *table = tables[i]->table;

		if (table != NULL && table_game(table) != NULL)
			table_private_lost(table, table_seat_of(table,
			    clean.id));
	}
	bot_leave(bot);
}

/* The one in members whose clean id is user_id, or NULL. */
static const struct user *
among(const struct user *members, size_t n, const char *user_id)
{
	char buf[512];
	const char *id;

	for (size_t i = 0; i < n; i++)
		if (members[i].id != NULL && (id = user_id_clean(members[i].id,
		    buf, sizeof(buf))) != NULL && strcmp(id, user_id) == 0)
			return &members[i];
	return NULL;
}

/*
 * Everyone in channel, as the adapter learnt them whole after joining it
 * (a restart, a reconnect): comings and goings the bot could not see
 * meanwhile count as if seen now.  An owner who is gone gets the grace
 * time, then their seat may change hands; one marked gone who is here
 * again is back.  Owners who are here and were not gone hear nothing.
 */
static void
on_members(void *data, struct adapter *adapter, const char *channel,
    const struct user *members, size_t n)
{
	struct bot *bot = data;
	struct network *network = network_of(bot, adapter);
	struct channel *where;
	struct table *table;

	if (network == NULL || channel == NULL ||
	    (where = channel_get(network, channel, 0)) == NULL)
		return;
	bot_enter(bot);
	/*
	 * From the last seat down: someone gone from a lobby loses their
	 * seat there, which moves only the seats after it.
	 */
	table = where->table;
	for (int seat = table != NULL ? table_nseats(table) - 1 : -1;
	    seat >= 0 && (table = where->table) != NULL; seat--) {
		const struct user *here;
		const struct seat *s;
		struct user clean;
		char buf[512];

		if (seat >= table_nseats(table))
			continue;
		s = table_seat(table, seat);
		if (s->computer || s->user_id[0] == '\0')
			continue;
		here = among(members, n, s->user_id);
		/*
		 * A name changed while the bot could not see it (a restart):
		 * the seat goes by the name people see now.
		 */
		if (here != NULL && here->name != NULL &&
		    user_clean(here, &clean, buf, sizeof(buf)) == 0 &&
		    strcmp(clean.name, s->name) != 0)
			table_rename(table, seat, &clean);
		if (here && s->away) {
			struct user who = { .id = s->user_id, .name = s->name };

			on_join_event(bot, adapter, channel, &who);
		} else if (!here && !s->away) {
			table_left_channel(table, seat, bot->grace);
		}
	}
	bot_leave(bot);
}

static void
on_flush(void *data)
{
	bot_flush(data);
}

/* What adapters tell the core (adapter.h), given to each with its network. */
const struct adapter_listener bot_listener = {
	.message = on_message,
	.edited = on_edited,
	.join = on_join,
	.leave = on_leave,
	.rename = on_rename,
	.sent = on_sent,
	.connected = on_connected,
	.private_lost = on_private_lost,
	.members = on_members,
	.inside = on_inside,
	.flush = on_flush,
};
