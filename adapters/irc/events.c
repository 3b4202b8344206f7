/*
 * events.c - what the server tells the bot, as libircclient's events:
 * registration done, people joining, leaving, renaming and speaking,
 * kicks, invitations, CTCP, capabilities, and the numerics (NAMES, WHO,
 * SASL, nick and join failures, ISON and MONITOR).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "irc_int.h"
#include "log.h"
#include "loop.h"
#include "version.h"
#include "xmalloc.h"

static struct irc *
session_irc(irc_session_t *session)
{
	return irc_get_ctx(session);
}

/* Our own user@host, as the server shows it before our lines. */
static void
self_mask(struct irc *irc, const char *user, const char *host)
{
	snprintf(irc->self_user, sizeof(irc->self_user), "%s", user);
	snprintf(irc->self_host, sizeof(irc->self_host), "%s", host);
}

static void
on_connect(irc_session_t *session, const char *event, const char *origin,
    const char **params, unsigned int count)
{
	struct irc *irc = session_irc(session);
	struct origin o;

	(void)event;
	(void)origin;
	if (count < 1 || irc->phase != PHASE_RELAY)
		return;
	snprintf(irc->nick, sizeof(irc->nick), "%s", params[0]);
	/* "Welcome to the ... Network nick!user@host" tells our mask. */
	if (count >= 2) {
		const char *word = strrchr(params[count - 1], ' ');

		word = word != NULL ? word + 1 : params[count - 1];
		if (irc_origin_split(word, &o) == 0 &&
		    irc_is_self(irc, o.nick) &&
		    o.user[0] != '\0' && o.host[0] != '\0')
			self_mask(irc, o.user, o.host);
	}
	irc->phase = PHASE_READY;
	irc->registered_at = irc_now_ms(irc);
	loop_cancel(irc->loop, irc->register_timer);
	irc->register_timer = 0;
	irc->cap_done = 1;
	log_info("irc %s: registered as %s", irc->network, irc->nick);
	irc_nickserv_identify(irc);
	irc_join_wanted(irc);
	irc->ghost_until = 0;
	irc_reclaim_start(irc);
	irc_queue_run(irc->queue, 1);
	if (irc_alive(irc))
		adapter_connected(irc->adapter, 1);
}

static void
on_nick(irc_session_t *session, const char *event, const char *origin,
    const char **params, unsigned int count)
{
	struct irc *irc = session_irc(session);
	struct irc_user *u;
	struct origin o;
	char old[512];
	int had;
	size_t n;

	(void)event;
	if (count < 1 || irc_origin_split(origin, &o) != 0)
		return;
	if (irc_is_self(irc, o.nick)) {
		snprintf(irc->nick, sizeof(irc->nick), "%s", params[0]);
		/* One line for one change: irc_reclaim_done() logs its own. */
		if (irc_is_self(irc, irc->cfg.nick))
			irc_reclaim_done(irc);
		else
			log_info("irc %s: we are %s now", irc->network,
			    irc->nick);
		return;
	}
	/* Both nicks change hands: what we knew of them is old. */
	irc_glimpse_forget(irc, o.nick);
	irc_glimpse_forget(irc, params[0]);
	/*
	 * Lines already sent to the nick taken now were checked against its
	 * holder then, but the server may have handled the NICK first and
	 * handed them to this person: no client can prevent that, an
	 * operator must hear of it.
	 */
	if (irc->queue != NULL && (n = irc_queue_inflight_to(irc->queue,
	    irc->is.casemap, params[0])) > 0)
		log_warn("irc %s: %s!%s@%s took the nick %s while %zu private "
		    "lines to it were on their way: the server may have handed "
		    "them to %s", irc->network, o.nick, o.user, o.host,
		    params[0], n, params[0]);
	if (irc_nick_eq(irc, o.nick, irc->cfg.nick))
		irc_reclaim_now(irc);
	if ((u = irc_user_find(irc, o.nick)) == NULL)
		return;
	irc_user_learn(irc, u, o.user, o.host, NULL);
	had = irc_user_id(irc, u, old, sizeof(old)) == 0;
	irc_rename_note(irc, o.nick, u->user, u->host, params[0]);
	if (!irc_set_field(&u->nick, params[0]))
		return;
	/* Lines still waiting for the old nick would find nobody. */
	if (irc->queue != NULL) {
		size_t max = IRC_LINE_MAX - 4 - irc_self_mask_length(irc);

		irc_queue_retarget(irc->queue, irc->is.casemap, o.nick,
		    params[0], max);
	}
	irc_notify_rename(irc, u, had ? old : NULL, 1);
}

/* Tells the core that u left channel (NULL: quit). */
static void
tell_leave(struct irc *irc, const char *channel, const struct irc_user *u)
{
	char id[512], mask[512];
	struct user who = { 0 };

	if (irc_alive(irc) && irc_user_struct(irc, u, id, sizeof(id), mask,
	    sizeof(mask), &who) == 0)
		adapter_leave(irc->adapter, channel, &who);
}

static void
on_quit(irc_session_t *session, const char *event, const char *origin,
    const char **params, unsigned int count)
{
	struct irc *irc = session_irc(session);
	struct irc_user *u;
	struct origin o;

	(void)event;
	(void)params;
	(void)count;
	if (irc_origin_split(origin, &o) != 0 || irc_is_self(irc, o.nick))
		return;
	irc_glimpse_forget(irc, o.nick);
	if (irc_nick_eq(irc, o.nick, irc->cfg.nick))
		irc_reclaim_now(irc);
	if ((u = irc_user_find(irc, o.nick)) == NULL)
		return;
	irc_user_learn(irc, u, o.user, o.host, NULL);
	tell_leave(irc, NULL, u);
	irc_user_quit(irc, u);
}

/*
 * Asks for the members' user@host and accounts once the games' lines are
 * out: a line per channel adds up when joining hundreds.
 */
static void
send_who(struct irc *irc, struct irc_chan *c)
{
	c->who_at = irc_now_ms(irc);
	if (irc->is.whox)
		irc_queue_line(irc, IRC_CLASS_BACKGROUND, "WHO %s %%tcuhna,"
		    WHOX_TOKEN, c->name);
	else
		irc_queue_line(irc, IRC_CLASS_BACKGROUND, "WHO %s", c->name);
}

static void
on_join(irc_session_t *session, const char *event, const char *origin,
    const char **params, unsigned int count)
{
	struct irc *irc = session_irc(session);
	struct irc_chan *c;
	struct irc_user *u;
	struct origin o;
	char id[512], mask[512];
	struct user who = { 0 };

	(void)event;
	if (count < 1 || irc_origin_split(origin, &o) != 0)
		return;
	if (irc_is_self(irc, o.nick)) {
		c = irc_chan_get(irc, params[0]);
		c->joined = 1;
		c->joined_at = irc_now_ms(irc);
		irc_chan_clear(irc, c);
		loop_cancel(irc->loop, c->rejoin_timer);
		c->rejoin_timer = 0;
		if (o.user[0] != '\0' && o.host[0] != '\0')
			self_mask(irc, o.user, o.host);
		log_info("irc %s: joined %s", irc->network, c->name);
		if (c->kicked)
			log_warn("irc %s: back in %s after a kick; %zu lines "
			    "waited for it, and commands said there meanwhile "
			    "were not seen", irc->network, c->name,
			    irc_queue_flow_depth(irc->queue, c->name));
		send_who(irc, c);
		/*
		 * In: after a kick its table resumes behind the lines that
		 * waited (said at every join, so that nothing the core
		 * remembers of a kick outlives this channel's state here).
		 */
		if (irc_alive(irc))
			adapter_inside(irc->adapter, c->name, 1);
		c->kicked = 0;
		/* Its lines waited for the join. */
		irc_queue_flush(irc->queue);
		return;
	}
	if ((c = irc_chan_find(irc, params[0])) == NULL || !c->joined)
		return;
	u = irc_user_get(irc, o.nick);
	irc_chan_add(c, u);
	irc_user_learn(irc, u, o.user, o.host,
	    (irc->caps & CAP_EXTENDED_JOIN) && count >= 2 ? params[1] : NULL);
	if (irc_alive(irc) && irc_user_struct(irc, u, id, sizeof(id), mask,
	    sizeof(mask), &who) == 0)
		adapter_join(irc->adapter, c->name, &who);
}

/* We are out of c (PART, KICK): back in later while it is wanted. */
static void
self_left(struct irc *irc, struct irc_chan *c)
{
	c->joined = 0;
	c->who_at = 0;
	irc_chan_clear(irc, c);
	if (c->wanted)
		irc_rejoin_later(irc, c, KICK_REJOIN_MS);
	else
		irc_chan_drop(irc, c);
}

/* u is out of c (PART, KICK): the core hears of it, then we forget. */
static void
member_left(struct irc *irc, struct irc_chan *c, struct irc_user *u)
{
	tell_leave(irc, c->name, u);
	irc_chan_remove(irc, c, u);
}

static void
on_part(irc_session_t *session, const char *event, const char *origin,
    const char **params, unsigned int count)
{
	struct irc *irc = session_irc(session);
	struct irc_chan *c;
	struct irc_user *u;
	struct origin o;

	(void)event;
	if (count < 1 || irc_origin_split(origin, &o) != 0 ||
	    (c = irc_chan_find(irc, params[0])) == NULL)
		return;
	if (irc_is_self(irc, o.nick)) {
		log_info("irc %s: left %s", irc->network, c->name);
		self_left(irc, c);
		return;
	}
	if ((u = irc_user_find(irc, o.nick)) == NULL || !irc_chan_has(c, u))
		return;
	irc_user_learn(irc, u, o.user, o.host, NULL);
	member_left(irc, c, u);
}

static void
on_kick(irc_session_t *session, const char *event, const char *origin,
    const char **params, unsigned int count)
{
	struct irc *irc = session_irc(session);
	struct irc_chan *c;
	struct irc_user *u;

	(void)event;
	if (count < 2 || (c = irc_chan_find(irc, params[0])) == NULL)
		return;
	if (irc_is_self(irc, params[1])) {
		log_warn("irc %s: kicked from %s by %s: %s", irc->network,
		    c->name, origin != NULL ? origin : "?",
		    count >= 3 ? params[2] : "");
		/* Staying a while forgives earlier kicks. */
		if (irc_now_ms(irc) - c->joined_at > 10 * 60 * 1000)
			c->retries = 0;
		/*
		 * IRC keeps nothing for an absent client: commands said there
		 * meanwhile are lost unanswered.  The core hears that the bot
		 * is out (its tables wait: no clock, no computer moves), and
		 * what they said waits for the rejoin.
		 */
		log_warn("irc %s: until the bot is back in %s, what is said "
		    "there goes unheard and unanswered; its tables' lines wait",
		    irc->network, c->name);
		c->kicked = 1;
		self_left(irc, c);
		if (irc_alive(irc))
			adapter_inside(irc->adapter, c->name, 0);
		return;
	}
	if ((u = irc_user_find(irc, params[1])) == NULL || !irc_chan_has(c, u))
		return;
	member_left(irc, c, u);
}

static void
on_privmsg(irc_session_t *session, const char *event, const char *origin,
    const char **params, unsigned int count)
{
	struct irc *irc = session_irc(session);
	struct irc_user *u, stranger;
	struct irc_chan *c = NULL;
	struct origin o;
	char id[512], mask[512], *text;
	struct user who = { 0 };

	(void)event;
	/*
	 * libircclient tells private from channel messages by comparing
	 * with the nick it registered, which alternative nicks change; the
	 * target decides here.
	 */
	if (count < 2 || irc_origin_split(origin, &o) != 0 || !irc_alive(irc))
		return;
	if (irc_is_channel(&irc->is, params[0])) {
		if ((c = irc_chan_find(irc, params[0])) == NULL || !c->joined)
			return;
	} else if (!irc_is_self(irc, params[0])) {
		return;
	}
	if ((u = irc_user_find(irc, o.nick)) != NULL) {
		irc_user_learn(irc, u, o.user, o.host, NULL);
	} else {
		/* Who holds the nick now, for a moment. */
		irc_glimpse_note(irc, o.nick, o.user, o.host, NULL, 0,
		    irc_mark(irc));
		memset(&stranger, 0, sizeof(stranger));
		stranger.nick = o.nick;
		stranger.user = o.user;
		stranger.host = o.host;
		u = &stranger;
	}
	if (irc_user_struct(irc, u, id, sizeof(id), mask, sizeof(mask),
	    &who) != 0)
		return;
	text = xstrdup(params[1]);
	irc_strip_codes(text);
	if (text[0] != '\0' && irc_alive(irc))
		adapter_message(irc->adapter, c != NULL ? c->name : NULL, &who, text);
	free(text);
}

static void
on_notice(irc_session_t *session, const char *event, const char *origin,
    const char **params, unsigned int count)
{
	struct irc *irc = session_irc(session);

	(void)event;
	/* Bots never answer notices; services' replies are worth a log. */
	if (count >= 2 && origin != NULL)
		log_debug("irc %s: notice from %s: %s", irc->network, origin,
		    params[1]);
}

int
irc_valid_channel(const char *s)
{
	size_t n = strlen(s);

	if (n < 2 || n > 200 || strchr("#&!+", s[0]) == NULL)
		return 0;
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= ' ' || *s == ',' || *s == 0x7f)
			return 0;
	return 1;
}

static void
on_invite(irc_session_t *session, const char *event, const char *origin,
    const char **params, unsigned int count)
{
	struct irc *irc = session_irc(session);
	struct irc_chan *c;

	(void)event;
	if (count < 2 || !irc_valid_channel(params[1]))
		return;
	log_info("irc %s: %s invited us to %s%s", irc->network,
	    origin != NULL ? origin : "?", params[1],
	    irc->cfg.join_on_invite ? "" : " (join_on_invite is off)");
	if (!irc->cfg.join_on_invite)
		return;
	c = irc_chan_get(irc, params[1]);
	c->wanted = 1;
	if (!c->joined)
		irc_queue_line(irc, IRC_CLASS_CONTROL, "JOIN %s", c->name);
}

static void
on_ctcp(irc_session_t *session, const char *event, const char *origin,
    const char **params, unsigned int count)
{
	struct irc *irc = session_irc(session);
	struct origin o;

	(void)event;
	if (count < 1 || irc_origin_split(origin, &o) != 0 ||
	    strcasecmp(params[0], "VERSION") != 0)
		return;
	irc_queue_line(irc, IRC_CLASS_LOW,
	    "NOTICE %s :\001VERSION stichbot %s\001",
	    o.nick, STICHBOT_VERSION);
}

static void
on_unknown(irc_session_t *session, const char *event, const char *origin,
    const char **params, unsigned int count)
{
	struct irc *irc = session_irc(session);
	struct irc_user *u;
	struct origin o;

	if (strcmp(event, "CAP") == 0) {
		irc_cap_message(irc, params, count);
	} else if (strcmp(event, "AUTHENTICATE") == 0) {
		irc_authenticate_message(irc, params, count);
	} else if (strcmp(event, "ACCOUNT") == 0) {
		if (count < 1 || irc_origin_split(origin, &o) != 0)
			return;
		if (irc_is_self(irc, o.nick))
			snprintf(irc->account, sizeof(irc->account), "%s",
			    irc_account_known(params[0]) ? params[0] : "");
		else if ((u = irc_user_find(irc, o.nick)) != NULL)
			irc_user_learn(irc, u, o.user, o.host, params[0]);
	} else if (strcmp(event, "CHGHOST") == 0) {
		if (count < 2 || irc_origin_split(origin, &o) != 0)
			return;
		if (irc_is_self(irc, o.nick)) {
			self_mask(irc, params[0], params[1]);
		} else if ((u = irc_user_find(irc, o.nick)) != NULL) {
			irc_user_learn(irc, u, params[0], params[1], NULL);
		}
	}
	/* ERROR is logged as it arrives (relay.c's relay_line()). */
}

/* A NAMES reply (353): the people on a channel we joined. */
static void
names_reply(struct irc *irc, const char *channel, const char *names)
{
	struct irc_chan *c = irc_chan_find(irc, channel);
	char entry[512], nick[128], user[128], host[256];
	const char *p = names;

	if (c == NULL || !c->joined)
		return;
	while (*p != '\0') {
		const char *end = strchr(p, ' ');
		size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
		struct irc_user *u;

		if (n > 0 && n < sizeof(entry)) {
			memcpy(entry, p, n);
			entry[n] = '\0';
			if (irc_names_entry(&irc->is, entry, nick, sizeof(nick),
			    user, sizeof(user), host, sizeof(host)) == 0 &&
			    !irc_is_self(irc, nick)) {
				u = irc_user_get(irc, nick);
				irc_chan_add(c, u);
				irc_user_learn(irc, u, user, host, NULL);
			}
		}
		p += n;
		while (*p == ' ')
			p++;
	}
}

/* A WHO (352) or WHOX (354) reply; account NULL when WHO has none. */
static void
who_reply(struct irc *irc, const char *user, const char *host,
    const char *nick, const char *account)
{
	struct irc_user *u;

	if (irc_is_self(irc, nick)) {
		self_mask(irc, user, host);
		if (account != NULL)
			snprintf(irc->account, sizeof(irc->account), "%s",
			    irc_account_known(account) ? account : "");
		return;
	}
	if ((u = irc_user_find(irc, nick)) != NULL)
		irc_user_learn(irc, u, user, host, account);
}

static void
join_failed(struct irc *irc, unsigned int code, const char **params,
    unsigned int count)
{
	struct irc_chan *c;

	if (count < 2)
		return;
	log_warn("irc %s: cannot join %s: %s (%03u)", irc->network, params[1],
	    params[count - 1], code);
	if ((c = irc_chan_find(irc, params[1])) == NULL || c->joined)
		return;
	/*
	 * A ban, a key, a full or invite-only channel, one for registered
	 * nicks, one a netsplit holds (437) or our limit of channels may
	 * change; a name the server refuses will not.  An operator who sets
	 * +k and kicks the bot, then takes the key off, has the bot back.
	 */
	if (c->wanted && (code == 471 || code == 473 || code == 474 ||
	    code == 475 || code == 477 || code == 437 || code == 405))
		irc_rejoin_later(irc, c, BAN_REJOIN_MS);
}

/* A WHO (352) or WHOX (354) reply: a channel's, or a verification's. */
static void
who_numeric(struct irc *irc, unsigned int code, const char **params,
    unsigned int count)
{
	if (code == 352 && count >= 6) {
		who_reply(irc, params[2], params[3], params[5], NULL);
		irc_verify_reply(irc, params[5], params[2], params[3], NULL);
	}
	if (code != 354)
		return;
	if (count >= 7 && strcmp(params[1], WHOX_TOKEN) == 0)
		who_reply(irc, params[3], params[4], params[5], params[6]);
	if (count >= 6 && strcmp(params[1], VERIFY_TOKEN) == 0) {
		who_reply(irc, params[2], params[3], params[4], params[5]);
		irc_verify_reply(irc, params[4], params[2], params[3],
		    params[5]);
	}
}

/* Logging in: SASL's numerics (900-907), and a server without CAP. */
static void
login_numeric(struct irc *irc, unsigned int code, const char **params,
    unsigned int count)
{
	const char *last = count > 0 ? params[count - 1] : "";

	switch (code) {
	case 900:
		if (count >= 3) {
			snprintf(irc->account, sizeof(irc->account), "%s",
			    params[2]);
			log_info("irc %s: logged in as %s", irc->network,
			    params[2]);
		}
		break;
	case 901:
		irc->account[0] = '\0';
		break;
	case 903:
		irc->sasl_state = 3;
		irc_cap_end(irc);
		break;
	case 902:
	case 904:
	case 905:
	case 906:
		log_warn("irc %s: SASL login failed: %s (%03u)", irc->network,
		    last, code);
		irc_cap_end(irc);
		break;
	case 907:
		irc_cap_end(irc);
		break;
	case 421:
		if (count >= 2 && strcasecmp(params[1], "CAP") == 0)
			irc->cap_done = 1;
		break;
	}
}

static void
on_numeric(irc_session_t *session, unsigned int code, const char *origin,
    const char **params, unsigned int count)
{
	struct irc *irc = session_irc(session);
	const char *last = count > 0 ? params[count - 1] : "";

	(void)origin;
	switch (code) {
	case 353:
		if (count >= 4)
			names_reply(irc, params[count - 2], last);
		break;
	case 352:
	case 354:
		who_numeric(irc, code, params, count);
		break;
	case 315:
		if (count >= 2)
			irc_verify_end(irc, params[1]);
		break;
	case 302:
		if (count >= 2)
			irc_userhost_reply(irc, last);
		break;
	case 303:
		if (count >= 2)
			irc_ison_reply(irc, last);
		break;
	case 730:
	case 731:
		if (count >= 2 && code == 731)
			irc_monitor_reply(irc, last);
		break;
	case 4:
		/* RPL_MYINFO: the server's software sets the default pace. */
		if (count >= 3 && !irc->cfg.flood_given && irc->queue != NULL) {
			int burst, interval;

			irc_pace_for_server(params[2], &burst, &interval);
			irc_queue_set_pace(irc->queue, burst, interval);
			log_info("irc %s: %s: sending %d lines at once, then "
			    "one per %d ms", irc->network, params[2], burst,
			    interval);
		}
		break;
	case 396:
		if (count >= 2) {
			const char *at = strchr(params[1], '@');

			snprintf(irc->self_host, sizeof(irc->self_host), "%s",
			    at != NULL ? at + 1 : params[1]);
		}
		break;
	case 432:
	case 433:
		irc_next_nick(irc, code == 432);
		break;
	case 437:
		/* ERR_UNAVAILRESOURCE: a nick or a channel a netsplit holds. */
		if (count >= 2 && irc_is_channel(&irc->is, params[1]))
			join_failed(irc, code, params, count);
		else
			irc_next_nick(irc, 0);
		break;
	case 421:
	case 900:
	case 901:
	case 902:
	case 903:
	case 904:
	case 905:
	case 906:
	case 907:
		login_numeric(irc, code, params, count);
		break;
	case 471:
	case 473:
	case 474:
	case 475:
	case 477:
	case 403:
	case 405:
	case 476:
	case 479:
		join_failed(irc, code, params, count);
		break;
	case 404:
		/*
		 * The channel refused a line (moderated, or the bot quieted or
		 * banned): what it said there is lost, which an operator must
		 * hear of.
		 */
		if (count >= 2)
			log_warn("irc %s: cannot send to %s (moderated, or the "
			    "bot is quieted or banned there): %s",
			    irc->network, params[1], last);
		break;
	case 313:
	case 318:
		if (count >= 2)
			irc_nickserv_whois(irc, code, params[1]);
		break;
	case 401:
		/* A nick gone between the holder check and the line. */
		if (count >= 2) {
			log_info("irc %s: cannot send to %s: %s", irc->network,
			    params[1], last);
			irc_nickserv_whois(irc, code, params[1]);
		}
		break;
	default:
		break;
	}
}

static const irc_callbacks_t callbacks = {
	.event_connect = on_connect,
	.event_nick = on_nick,
	.event_quit = on_quit,
	.event_join = on_join,
	.event_part = on_part,
	.event_kick = on_kick,
	.event_channel = on_privmsg,
	.event_privmsg = on_privmsg,
	.event_notice = on_notice,
	.event_channel_notice = on_notice,
	.event_invite = on_invite,
	.event_ctcp_req = on_ctcp,
	.event_unknown = on_unknown,
	.event_numeric = on_numeric,
};

irc_session_t *
irc_session_create(void)
{
	/* libircclient copies the table; it never writes to ours. */
	return irc_create_session((irc_callbacks_t *)&callbacks);
}

