/*
 * register.c - registration (IRCv3 capabilities, SASL PLAIN, the
 * nick to use when ours is taken) and, once registered under another
 * nick, taking ours back (issue 15.2): MONITOR where the server offers
 * it, else ISON every RECLAIM_ISON_MS, and NickServ REGAIN/GHOST with a
 * NickServ password.  Secrets are wiped from the buffers that held them.
 */
#include <stdio.h>
#include <string.h>

#include "irc_int.h"
#include "log.h"
#include "loop.h"

/* Nicks tried during one registration before giving up. */
#define NICK_TRIES 50
/* While another holds our nick, ask whether it is free this often. */
#define RECLAIM_ISON_MS 10000
/*
 * How long what this run says may wait for the connection that held our
 * nick when we registered (see irc_reclaim_start()), and how often we ask
 * meanwhile whether it is gone.
 */
#define GHOST_HOLD_MS 15000
#define GHOST_ISON_MS 1000

static const char *const cap_names[] = {
	"multi-prefix", "extended-join", "account-notify", "away-notify",
	"userhost-in-names", "chghost", "sasl", "account-tag", NULL,
};

/* Every capability above but sasl, which is asked for on its own. */
static const char *const cap_wanted[] = {
	"multi-prefix", "extended-join", "account-notify", "away-notify",
	"userhost-in-names", "chghost", "account-tag", NULL,
};

/* Registration: capabilities, SASL, nicknames. */

void
irc_cap_end(struct irc *irc)
{
	if (irc->cap_done)
		return;
	irc->cap_done = 1;
	irc_send_now(irc, "CAP END");
}

static void
sasl_chunk(const char *arg, void *ctx)
{
	struct irc *irc = ctx;
	char line[IRC_LINE_MAX];

	snprintf(line, sizeof(line), "AUTHENTICATE %s", arg);
	irc_send_now(irc, line);
	explicit_bzero(line, sizeof(line));
}

/* Every CAP REQ has its answer: log in with SASL, or end negotiation. */
static void
cap_requests_answered(struct irc *irc)
{
	if ((irc->caps & CAP_SASL) && irc->cfg.sasl_user != NULL &&
	    irc->sasl_state == 0 && irc->phase == PHASE_RELAY) {
		irc->sasl_state = 1;
		irc_send_now(irc, "AUTHENTICATE PLAIN");
		return;
	}
	irc_cap_end(irc);
}

static void
cap_set(struct irc *irc, const char *list, int enable)
{
	const char *pos = list, *value;
	char name[64];
	size_t vlen;
	int removed;

	while (irc_cap_next(&pos, name, sizeof(name), &value, &vlen,
	    &removed)) {
		for (int i = 0; cap_names[i] != NULL; i++) {
			if (strcmp(cap_names[i], name) != 0)
				continue;
			if (enable && !removed)
				irc->caps |= 1 << i;
			else
				irc->caps &= ~(1 << i);
		}
	}
}

void
irc_cap_message(struct irc *irc, const char **params, unsigned int count)
{
	const char *sub = count > 1 ? params[1] : "";
	const char *list = count > 2 ? params[count - 1] : "";
	char req[400], line[IRC_LINE_MAX];

	if (strcmp(sub, "LS") == 0) {
		int more = count > 3 && strcmp(params[2], "*") == 0;

		if (irc->caps_offered.len > 0)
			text_add(&irc->caps_offered, " ");
		text_add(&irc->caps_offered, list);
		if (more || irc->cap_done)
			return;
		if (irc_cap_request(text_str(&irc->caps_offered), cap_wanted,
		    req, sizeof(req)) > 0) {
			snprintf(line, sizeof(line), "CAP REQ :%s", req);
			irc->cap_reqs++;
			irc_send_now(irc, line);
		}
		if (irc->cfg.sasl_user != NULL) {
			if (irc_cap_sasl_plain(text_str(&irc->caps_offered))) {
				irc->cap_reqs++;
				irc_send_now(irc, "CAP REQ :sasl");
			} else {
				log_warn("irc %s: the server offers no SASL "
				    "PLAIN; logging in without it",
				    irc->network);
			}
		}
		if (irc->cap_reqs == 0)
			irc_cap_end(irc);
	} else if (strcmp(sub, "ACK") == 0 || strcmp(sub, "NAK") == 0) {
		if (sub[0] == 'A')
			cap_set(irc, list, 1);
		else
			log_info("irc %s: the server refused capabilities: %s",
			    irc->network, list);
		if (irc->cap_reqs > 0 && --irc->cap_reqs == 0 &&
		    !irc->cap_done)
			cap_requests_answered(irc);
	} else if (strcmp(sub, "NEW") == 0) {
		const char *want[sizeof(cap_wanted) / sizeof(cap_wanted[0])];
		int n = 0;

		/* Ask for what is new and wanted, not yet on. */
		for (int i = 0; cap_wanted[i] != NULL; i++)
			if (!(irc->caps & (1 << i)) &&
			    irc_cap_find(list, cap_wanted[i], NULL, NULL))
				want[n++] = cap_wanted[i];
		want[n] = NULL;
		if (irc->caps_offered.len > 0)
			text_add(&irc->caps_offered, " ");
		text_add(&irc->caps_offered, list);
		if (n > 0 && irc_cap_request(list, want, req,
		    sizeof(req)) > 0) {
			snprintf(line, sizeof(line), "CAP REQ :%s", req);
			irc_send_now(irc, line);
		}
	} else if (strcmp(sub, "DEL") == 0) {
		cap_set(irc, list, 0);
	}
}

void
irc_authenticate_message(struct irc *irc, const char **params,
    unsigned int count)
{
	if (irc->sasl_state != 1 || count < 1 || strcmp(params[0], "+") != 0)
		return;
	irc->sasl_state = 2;
	irc_sasl_plain(irc->cfg.sasl_user, irc->cfg.sasl_password, sasl_chunk,
	    irc);
}

/* Tries the next nickname after ours was taken (433) or refused (432). */
void
irc_next_nick(struct irc *irc, int erroneous)
{
	char line[128];
	int k;

	if (irc->phase != PHASE_RELAY)
		return;
	/* A nick with digits that is too long: drop a letter of the base. */
	if (erroneous && irc->nick_try > irc->cfg.nalt &&
	    strlen(irc->nick_base) > 1) {
		irc->nick_base[strlen(irc->nick_base) - 1] = '\0';
		irc->nick_try--;
	}
	if (++irc->nick_try > NICK_TRIES) {
		irc_connection_lost(irc, "no nickname was free");
		return;
	}
	k = irc->nick_try;
	if (k <= irc->cfg.nalt)
		snprintf(irc->nick, sizeof(irc->nick), "%s",
		    irc->cfg.alt_nicks[k - 1]);
	else
		snprintf(irc->nick, sizeof(irc->nick), "%s%d", irc->nick_base,
		    k - irc->cfg.nalt);
	log_info("irc %s: nickname taken; trying %s", irc->network,
	    irc->nick);
	snprintf(line, sizeof(line), "NICK %s", irc->nick);
	irc_send_now(irc, line);
}

/* The NickServ commands; irc->ns_waiting holds them as bits. */
enum ns_command { NS_IDENTIFY, NS_REGAIN, NS_GHOST, NS_COMMANDS };
static const char *const ns_commands[NS_COMMANDS] = {
	[NS_IDENTIFY] = "IDENTIFY",
	[NS_REGAIN] = "REGAIN",
	[NS_GHOST] = "GHOST",
};

/* Sends "PRIVMSG NickServ :COMMAND nick password"; wipes the line. */
static void
nickserv_send(struct irc *irc, const char *command)
{
	char line[IRC_LINE_MAX];

	snprintf(line, sizeof(line), "PRIVMSG NickServ :%s %s %s", command,
	    irc->cfg.nick, irc->cfg.nickserv_password);
	irc_send_now(irc, line);
	explicit_bzero(line, sizeof(line));
}

/*
 * A NickServ command with our password: only
 * to a NickServ the server calls a network service.  Where services are
 * down or absent anyone may take the nick NickServ, and would read the
 * password.  So the first command of a connection asks the server's
 * WHOIS first, and waits for its answer (irc_nickserv_whois()).
 */
static void
nickserv(struct irc *irc, enum ns_command command)
{
	if (irc->ns_verified) {
		nickserv_send(irc, ns_commands[command]);
		return;
	}
	irc->ns_waiting |= 1 << command;
	if (irc->ns_asked)
		return;
	irc->ns_asked = 1;
	irc->ns_service = 0;
	irc_send_now(irc, "WHOIS NickServ");
}

void
irc_nickserv_whois(struct irc *irc, unsigned int code, const char *nick)
{
	if (!irc->ns_asked || !irc_nick_eq(irc, nick, "NickServ"))
		return;
	if (code == 313) {
		/* RPL_WHOISOPERATOR: "is a Network Service" (or an oper). */
		irc->ns_service = 1;
		return;
	}
	if (code != 318 && code != 401)
		return;
	irc->ns_asked = 0;
	if (!irc->ns_service) {
		log_warn("irc %s: NickServ is no network service here (%s); "
		    "the NickServ password is not sent", irc->network,
		    code == 401 ? "nobody holds the nick" :
		    "its WHOIS does not say so");
		irc->ns_waiting = 0;
		return;
	}
	irc->ns_verified = 1;
	for (int i = 0; i < NS_COMMANDS; i++)
		if (irc->ns_waiting & (1 << i))
			nickserv_send(irc, ns_commands[i]);
	irc->ns_waiting = 0;
}

/* With a NickServ password and no account yet: IDENTIFY. */
void
irc_nickserv_identify(struct irc *irc)
{
	if (irc->cfg.nickserv_password != NULL && irc->account[0] == '\0')
		nickserv(irc, NS_IDENTIFY);
}

/* Our own nick, held by someone else: taking it back. */

static void reclaim_timer(struct loop *loop, uint64_t id, void *arg);

/* The nick is free (or may be): ask for it. */
void
irc_reclaim_now(struct irc *irc)
{
	if (irc->phase != PHASE_READY || irc_is_self(irc, irc->cfg.nick))
		return;
	log_info("irc %s: asking for our nick %s back", irc->network,
	    irc->cfg.nick);
	irc_queue_line(irc, IRC_CLASS_CONTROL, "NICK %s", irc->cfg.nick);
}

/* How long until the reclaim timer asks again whether our nick is free. */
static uint64_t
reclaim_interval(const struct irc *irc)
{
	return irc->ghost_until > irc_now_ms(irc) ? GHOST_ISON_MS :
	    RECLAIM_ISON_MS;
}

/*
 * Registered under another nick: watch ours (MONITOR where the server has
 * it, else ISON now and then) and take it once it is free.  With a
 * NickServ password, ask services to free it (REGAIN; GHOST where REGAIN
 * is unknown, after the next poll).
 *
 * The holder may be our own previous connection, cut by a crash: the
 * server then still works through what it wrote (servers that charge
 * commands, like ngircd, take seconds) and frees the nick only after.
 * Its last lines are ones this run says again (they were never confirmed),
 * so what this run says waits until the nick is free, at most
 * GHOST_HOLD_MS, so as to come after them and not among them.
 */
void
irc_reclaim_start(struct irc *irc)
{
	if (irc_is_self(irc, irc->cfg.nick))
		return;
	log_info("irc %s: %s is taken; running as %s and watching for it",
	    irc->network, irc->cfg.nick, irc->nick);
	irc->ghost_until = irc_now_ms(irc) + GHOST_HOLD_MS;
	if (irc->cfg.nickserv_password != NULL && !irc->regain_sent) {
		irc->regain_sent = 1;
		nickserv(irc, NS_REGAIN);
	}
	if (irc->is.monitor) {
		irc->monitoring = 1;
		irc_queue_line(irc, IRC_CLASS_CONTROL, "MONITOR + %s",
		    irc->cfg.nick);
		return;
	}
	loop_cancel(irc->loop, irc->reclaim_timer);
	irc->reclaim_timer = loop_timer(irc->loop, reclaim_interval(irc),
	    reclaim_timer, irc);
}

static void
reclaim_timer(struct loop *loop, uint64_t id, void *arg)
{
	struct irc *irc = arg;

	(void)loop;
	(void)id;
	irc->reclaim_timer = 0;
	if (irc->phase != PHASE_READY || irc_is_self(irc, irc->cfg.nick))
		return;
	irc_enter(irc);
	irc_queue_line(irc, IRC_CLASS_BACKGROUND, "ISON %s", irc->cfg.nick);
	irc->reclaim_timer = loop_timer(irc->loop, reclaim_interval(irc),
	    reclaim_timer, irc);
	irc_leave(irc);
}

/* Our nick is ours again: stop watching. */
void
irc_reclaim_done(struct irc *irc)
{
	log_info("irc %s: we hold our nick %s again", irc->network,
	    irc->nick);
	loop_cancel(irc->loop, irc->reclaim_timer);
	irc->reclaim_timer = 0;
	/* What waited for the old connection goes now. */
	irc->ghost_until = 0;
	irc_queue_flush(irc->queue);
	if (irc->monitoring)
		irc_queue_line(irc, IRC_CLASS_CONTROL, "MONITOR - %s",
		    irc->cfg.nick);
	irc->monitoring = 0;
	irc_nickserv_identify(irc);
}

/* An ISON answer (303): is our nick online? */
void
irc_ison_reply(struct irc *irc, const char *list)
{
	const char *p = list;
	size_t n = strlen(irc->cfg.nick);

	if (irc_is_self(irc, irc->cfg.nick))
		return;
	while (*p != '\0') {
		size_t len = strcspn(p, " ");
		char word[64];

		if (len == n && len < sizeof(word)) {
			memcpy(word, p, len);
			word[len] = '\0';
			if (irc_nick_eq(irc, word, irc->cfg.nick)) {
				/* Still held: services may free it. */
				if (irc->cfg.nickserv_password != NULL &&
				    !irc->ghost_sent) {
					irc->ghost_sent = 1;
					nickserv(irc, NS_GHOST);
				}
				return;
			}
		}
		p += len;
		while (*p == ' ')
			p++;
	}
	irc_reclaim_now(irc);
}

/* A MONITOR note (730 online, 731 offline) listing nick[!user@host]s. */
void
irc_monitor_reply(struct irc *irc, const char *list)
{
	const char *p = list;

	while (*p != '\0') {
		size_t len = strcspn(p, ",");
		size_t nlen = strcspn(p, "!,");
		char word[64];

		if (nlen < sizeof(word)) {
			memcpy(word, p, nlen);
			word[nlen] = '\0';
			if (irc_nick_eq(irc, word, irc->cfg.nick))
				irc_reclaim_now(irc);
		}
		p += len;
		if (*p == ',')
			p++;
	}
}

