/*
 * proto.c - reading what the server says (see proto.h): lines parsed and
 * cleaned for libircclient, message tags, ISUPPORT and its case mapping,
 * masks, NAMES entries and the identities the core knows people by.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "proto.h"

int
irc_parse(char *line, struct irc_msg *msg)
{
	char *p = line;

	memset(msg, 0, sizeof(*msg));
	if (*p == '@')
		while (*p != '\0' && *p != ' ')
			p++;
	while (*p == ' ')
		p++;
	if (*p == ':') {
		msg->prefix = ++p;
		while (*p != '\0' && *p != ' ')
			p++;
		if (*p != '\0')
			*p++ = '\0';
		while (*p == ' ')
			p++;
	}
	if (*p == '\0')
		return -1;
	msg->command = p;
	while (*p != '\0' && *p != ' ')
		p++;
	if (*p != '\0')
		*p++ = '\0';
	while (msg->nparams < IRC_PARAMS_MAX) {
		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		/* The fifteenth parameter is the rest, with ':' or not. */
		if (*p == ':' || msg->nparams == IRC_PARAMS_MAX - 1) {
			if (*p == ':')
				p++;
			msg->params[msg->nparams++] = p;
			break;
		}
		msg->params[msg->nparams++] = p;
		while (*p != '\0' && *p != ' ')
			p++;
		if (*p != '\0')
			*p++ = '\0';
	}
	return 0;
}

int
irc_append(char *out, size_t outlen, size_t *len, const char *s)
{
	size_t n = strlen(s);

	if (*len + n >= outlen)
		return -1;
	memcpy(out + *len, s, n + 1);
	*len += n;
	return 0;
}

size_t
irc_utf8_cut(const char *s, size_t n)
{
	size_t back = 0;

	while (back < 3 && n > back &&
	    ((unsigned char)s[n - back] & 0xc0) == 0x80)
		back++;
	return ((unsigned char)s[n - back] & 0xc0) == 0x80 ? n : n - back;
}

int
irc_tag_value(const char *line, size_t len, const char *key, char *out,
    size_t outlen)
{
	size_t keylen = strlen(key), i = 1;

	if (len == 0 || line[0] != '@' || outlen == 0)
		return 0;
	while (i < len && line[i] != ' ') {
		size_t start = i, o = 0;

		while (i < len && line[i] != ';' && line[i] != ' ' &&
		    line[i] != '=')
			i++;
		if (i - start != keylen || memcmp(line + start, key,
		    keylen) != 0 || i >= len || line[i] != '=') {
			while (i < len && line[i] != ';' && line[i] != ' ')
				i++;
			if (i < len && line[i] == ';')
				i++;
			continue;
		}
		/* The value, unescaped as the message-tags spec says. */
		for (i++; i < len && line[i] != ';' && line[i] != ' '; i++) {
			char c = line[i];

			if (c == '\\') {
				if (++i >= len || line[i] == ';' ||
				    line[i] == ' ')
					break;
				c = line[i] == ':' ? ';' : line[i] == 's' ?
				    ' ' : line[i] == 'r' ? '\r' :
				    line[i] == 'n' ? '\n' : line[i];
			}
			if (c == '\r' || c == '\n' || c == '\0' ||
			    o + 1 >= outlen)
				return 0;
			out[o++] = c;
		}
		out[o] = '\0';
		return o > 0;
	}
	return 0;
}

size_t
irc_relay_line(const char *line, size_t len, char *out, size_t outlen)
{
	char buf[IRC_LINE_MAX * 2];
	struct irc_msg m;
	const char *cmd, *text;
	size_t i = 0, n = 0, olen = 0;

	/* Tags: nothing we request makes the server send them. */
	if (len > 0 && line[0] == '@') {
		while (i < len && line[i] != ' ')
			i++;
	}
	for (; i < len && n < sizeof(buf) - 1; i++)
		if (line[i] != '\r' && line[i] != '\0')
			buf[n++] = line[i];
	if (n > IRC_LINE_MAX - 2)
		n = irc_utf8_cut(buf, IRC_LINE_MAX - 2);
	buf[n] = '\0';
	if (irc_parse(buf, &m) != 0)
		return 0;
	cmd = m.command;
	if (isdigit((unsigned char)cmd[0])) {
		/* libircclient reads any three digits as a numeric. */
		if (strlen(cmd) != 3 || !isdigit((unsigned char)cmd[1]) ||
		    !isdigit((unsigned char)cmd[2]) || m.nparams == 0)
			return 0;
	} else if (strspn(cmd, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz") != strlen(cmd)) {
		/*
		 * Not a command (RFC 1459 2.3.1: letters or three digits):
		 * "@x" would read as tags, ":x" as a prefix once rebuilt.
		 */
		return 0;
	} else if (strcasecmp(cmd, "PRIVMSG") == 0 ||
	    strcasecmp(cmd, "NOTICE") == 0) {
		if (m.nparams < 2 || m.params[0][0] == '\0')
			return 0;
		text = m.params[1];
		if (text[0] == '\0' || strcmp(text, "\x01") == 0)
			return 0;
		if (strncasecmp(text, "\x01" "DCC ", 5) == 0)
			return 0;
	}
	if (outlen == 0)
		return 0;
	out[0] = '\0';
	if (m.prefix != NULL && m.prefix[0] != '\0' &&
	    (irc_append(out, outlen, &olen, ":") != 0 ||
	    irc_append(out, outlen, &olen, m.prefix) != 0 ||
	    irc_append(out, outlen, &olen, " ") != 0))
		return 0;
	if (irc_append(out, outlen, &olen, cmd) != 0)
		return 0;
	for (int k = 0; k < m.nparams; k++) {
		if (irc_append(out, outlen, &olen, k == m.nparams - 1 ?
		    " :" : " ") != 0 ||
		    irc_append(out, outlen, &olen, m.params[k]) != 0)
			return 0;
	}
	if (irc_append(out, outlen, &olen, "\r\n") != 0)
		return 0;
	return olen;
}

static int
casefold(enum irc_casemap map, unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c + ('a' - 'A');
	if (map == IRC_CASEMAP_ASCII)
		return c;
	switch (c) {
	case '[':
		return '{';
	case ']':
		return '}';
	case '\\':
		return '|';
	case '~':
		return map == IRC_CASEMAP_RFC1459 ? '^' : c;
	default:
		return c;
	}
}

int
irc_casecmp(enum irc_casemap map, const char *a, const char *b)
{
	const unsigned char *p = (const unsigned char *)a;
	const unsigned char *q = (const unsigned char *)b;

	for (;; p++, q++) {
		int x = casefold(map, *p), y = casefold(map, *q);

		if (x != y)
			return x - y;
		if (x == '\0')
			return 0;
	}
}

const char *
irc_casemap_name(enum irc_casemap map)
{
	switch (map) {
	case IRC_CASEMAP_STRICT:
		return "strict-rfc1459";
	case IRC_CASEMAP_ASCII:
		return "ascii";
	case IRC_CASEMAP_RFC1459:
	default:
		return "rfc1459";
	}
}

enum irc_casemap
irc_casemap_parse(const char *name)
{
	if (name != NULL && strcmp(name, "ascii") == 0)
		return IRC_CASEMAP_ASCII;
	if (name != NULL && strcmp(name, "strict-rfc1459") == 0)
		return IRC_CASEMAP_STRICT;
	return IRC_CASEMAP_RFC1459;
}

void
irc_isupport_init(struct irc_isupport *is)
{
	memset(is, 0, sizeof(*is));
	snprintf(is->chantypes, sizeof(is->chantypes), "#&");
	snprintf(is->prefixes, sizeof(is->prefixes), "@+");
	is->casemap = IRC_CASEMAP_RFC1459;
}

/* Copies value (vlen bytes) into out, cut to fit. */
static void
copy_value(char *out, size_t outlen, const char *value, size_t vlen)
{
	if (vlen >= outlen)
		vlen = outlen - 1;
	memcpy(out, value, vlen);
	out[vlen] = '\0';
}

void
irc_isupport_apply(struct irc_isupport *is, const struct irc_msg *msg)
{
	for (int i = 1; i < msg->nparams - 1; i++) {
		const char *tok = msg->params[i], *eq, *value;
		size_t klen, vlen;
		int negated = tok[0] == '-';

		if (negated)
			tok++;
		eq = strchr(tok, '=');
		klen = eq != NULL ? (size_t)(eq - tok) : strlen(tok);
		value = eq != NULL ? eq + 1 : "";
		vlen = strlen(value);
#define KEY(k) (klen == sizeof(k) - 1 && strncmp(tok, k, klen) == 0)
		if (KEY("CHANTYPES")) {
			if (negated)
				snprintf(is->chantypes, sizeof(is->chantypes),
				    "#&");
			else
				copy_value(is->chantypes,
				    sizeof(is->chantypes), value, vlen);
		} else if (KEY("PREFIX")) {
			const char *close = memchr(value, ')', vlen);

			if (negated) {
				snprintf(is->prefixes, sizeof(is->prefixes),
				    "@+");
			} else if (vlen == 0) {
				is->prefixes[0] = '\0';
			} else if (close != NULL) {
				copy_value(is->prefixes, sizeof(is->prefixes),
				    close + 1, vlen - (size_t)(close + 1 -
				    value));
			}
		} else if (KEY("WHOX")) {
			is->whox = !negated;
		} else if (KEY("MONITOR")) {
			is->monitor = !negated;
		} else if (KEY("CASEMAPPING")) {
			is->casemap = irc_casemap_parse(negated ? NULL : value);
		} else if (KEY("NETWORK")) {
			if (negated)
				is->network[0] = '\0';
			else
				copy_value(is->network, sizeof(is->network),
				    value, vlen);
		}
#undef KEY
	}
}

int
irc_is_channel(const struct irc_isupport *is, const char *target)
{
	return target[0] != '\0' && strchr(is->chantypes, target[0]) != NULL;
}

/* Copies n bytes of s into out; -1 when they do not fit. */
static int
copy_part(char *out, size_t outlen, const char *s, size_t n)
{
	if (n >= outlen)
		return -1;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

int
irc_mask_split(const char *mask, char *nick, size_t nicklen, char *user,
    size_t userlen, char *host, size_t hostlen)
{
	const char *bang = strchr(mask, '!');
	const char *at = strchr(bang != NULL ? bang : mask, '@');
	const char *nick_end = bang != NULL ? bang : at != NULL ? at :
	    mask + strlen(mask);

	if (nick_end == mask)
		return -1;
	if (copy_part(nick, nicklen, mask, (size_t)(nick_end - mask)) != 0)
		return -1;
	if (bang != NULL) {
		const char *user_end = at != NULL ? at : bang + strlen(bang);

		if (copy_part(user, userlen, bang + 1,
		    (size_t)(user_end - bang - 1)) != 0)
			return -1;
	} else if (copy_part(user, userlen, "", 0) != 0) {
		return -1;
	}
	return copy_part(host, hostlen, at != NULL ? at + 1 : "",
	    at != NULL ? strlen(at + 1) : 0);
}

int
irc_names_entry(const struct irc_isupport *is, const char *entry,
    char *nick, size_t nicklen, char *user, size_t userlen, char *host,
    size_t hostlen)
{
	while (*entry != '\0' && strchr(is->prefixes, *entry) != NULL)
		entry++;
	return irc_mask_split(entry, nick, nicklen, user, userlen, host,
	    hostlen);
}

int
irc_account_known(const char *account)
{
	return account != NULL && account[0] != '\0' &&
	    strcmp(account, "*") != 0 && strcmp(account, "0") != 0;
}

int
irc_identity(char *out, size_t outlen, enum irc_casemap map,
    const char *nick, const char *user, const char *host,
    const char *account)
{
	int n;

	if (outlen == 0)
		return -1;
	out[0] = '\0';
	if (irc_account_known(account))
		n = snprintf(out, outlen, "account:%s", account);
	else if (nick != NULL && nick[0] != '\0' && user != NULL &&
	    user[0] != '\0' && host != NULL && host[0] != '\0')
		n = snprintf(out, outlen, "%s!%s@%s", nick, user, host);
	else
		return -1;
	if (n < 0 || (size_t)n >= outlen) {
		out[0] = '\0';
		return -1;
	}
	irc_identity_fold(out, map);
	return 0;
}

void
irc_identity_fold(char *id, enum irc_casemap map)
{
	char *bang = strchr(id, '!');

	if (strncmp(id, "account:", 8) == 0 || bang == NULL)
		return;
	for (char *p = id; p < bang; p++)
		*p = (char)casefold(map, (unsigned char)*p);
}
