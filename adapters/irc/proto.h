/*
 * proto.h - the pure parts of the IRC protocol, without I/O or state:
 * parsing server lines and cleaning them for libircclient, IRCv3 message
 * tags, ISUPPORT (005) and case mappings, masks and identities (proto.c);
 * formatting codes and splitting outgoing text into lines that fit the
 * 512-byte limit (split.c); capability lists, SASL PLAIN and base64
 * (cap.c).  The outgoing queue is queue.h.
 */
#ifndef STICHBOT_IRC_PROTO_H
#define STICHBOT_IRC_PROTO_H

#include <stddef.h>
#include <stdint.h>

/* A protocol line's limit, CR LF included (RFC 1459, 2.3). */
#define IRC_LINE_MAX 512
/* The most parameters a message has (RFC 1459: 15). */
#define IRC_PARAMS_MAX 15
/*
 * Allowances for our own user and host while the server has not told us
 * (the 001 text, the echo of our JOIN): a long ident with its "~", and
 * the longest host most servers show (HOSTLEN 63).
 */
#define IRC_USER_ALLOWANCE 12
#define IRC_HOST_ALLOWANCE 63

/* A parsed line; every pointer points into the parsed buffer. */
struct irc_msg {
	const char *prefix;      /* "nick!user@host" or a server; NULL */
	const char *command;     /* "PRIVMSG", "001", ... */
	const char *params[IRC_PARAMS_MAX];
	int nparams;
};

/*
 * Parses one line (no CR LF) in place; IRCv3 message tags are skipped.
 * Returns 0, or -1 when the line has no command.
 */
int irc_parse(char *line, struct irc_msg *msg);

/*
 * The value of tag key among the IRCv3 message tags of a line ("@a=b;c
 * :prefix COMMAND ..."), unescaped, into out.  Returns 1 when the tag is
 * there with a non-empty value that fits, 0 otherwise.
 */
int irc_tag_value(const char *line, size_t len, const char *key, char *out,
    size_t outlen);

/*
 * Cleans one line from the server before libircclient sees it: removes
 * tags, CR and NUL, cuts it to IRC_LINE_MAX - 2 bytes at a UTF-8
 * boundary, rebuilds it in canonical form (single spaces, the last
 * parameter after " :") and drops what libircclient 1.9 mishandles: lines
 * without a command, numerics without parameters or of other than three
 * digits, PRIVMSG and NOTICE without a target and a non-empty text, and
 * CTCP DCC requests.  Writes the line with CR LF into out (at least
 * 2 * IRC_LINE_MAX bytes) and returns its length, or 0 to drop it.
 */
size_t irc_relay_line(const char *line, size_t len, char *out, size_t outlen);

/*
 * Where a cut at n bytes of s (which holds more) falls back to so that it
 * does not split a UTF-8 sequence.
 */
size_t irc_utf8_cut(const char *s, size_t n);
/* Appends s to out at *len unless it would overflow; -1 then. */
int irc_append(char *out, size_t outlen, size_t *len, const char *s);

/* Case mappings of ISUPPORT CASEMAPPING. */
enum irc_casemap {
	IRC_CASEMAP_RFC1459,     /* the default: []\~ are upper case of {}|^ */
	IRC_CASEMAP_STRICT,      /* strict-rfc1459: without ~ and ^ */
	IRC_CASEMAP_ASCII,
};

int irc_casecmp(enum irc_casemap map, const char *a, const char *b);
/* The ISUPPORT name of map ("rfc1459", "strict-rfc1459", "ascii"). */
const char *irc_casemap_name(enum irc_casemap map);
/* The map a CASEMAPPING value names; anything else is rfc1459. */
enum irc_casemap irc_casemap_parse(const char *name);

/* What the server told us in RPL_ISUPPORT (005), with RFC defaults. */
struct irc_isupport {
	char chantypes[16];      /* "#&" */
	char prefixes[16];       /* membership prefixes, "@+" */
	int whox;                /* WHO with %fields */
	int monitor;             /* MONITOR (IRCv3): online/offline notes */
	enum irc_casemap casemap;
	char network[64];
};

void irc_isupport_init(struct irc_isupport *is);
/* Applies the tokens of one 005 message (params[1] .. params[n - 2]). */
void irc_isupport_apply(struct irc_isupport *is, const struct irc_msg *msg);
int irc_is_channel(const struct irc_isupport *is, const char *target);

/*
 * Splits "nick!user@host" into its parts (user and host "" when absent).
 * Returns -1 when a part does not fit its buffer or the nick is empty.
 */
int irc_mask_split(const char *mask, char *nick, size_t nicklen, char *user,
    size_t userlen, char *host, size_t hostlen);
/*
 * A NAMES entry: membership prefixes skipped (several with multi-prefix),
 * then nick or nick!user@host (userhost-in-names).
 */
int irc_names_entry(const struct irc_isupport *is, const char *entry,
    char *nick, size_t nicklen, char *user, size_t userlen, char *host,
    size_t hostlen);

/* 1 for a services account name; "*" (extended-join, ACCOUNT) and "0"
 * (WHOX) mean none. */
int irc_account_known(const char *account);
/*
 * A person's identity for the core: "account:NAME" when the services
 * account is known, else "nick!user@host" with the nick in one case
 * (irc_identity_fold() with map).  Returns -1 (out "") when it cannot be
 * told: no account and user or host unknown (NULL or "").
 */
int irc_identity(char *out, size_t outlen, enum irc_casemap map,
    const char *nick, const char *user, const char *host,
    const char *account);
/*
 * Folds the nick of a "nick!user@host" identity in place to one case,
 * as the server's casemap does (rfc1459: A-Z, and []\~ as {}|^; ascii:
 * A-Z only): "Bob" and "BOB" are one nick to the server, so one person
 * coming back in another case keeps the seat.  Only the server's own
 * fold is right: under ascii, "Bob[" and "bob{" are two people, and the
 * folded nick must still name the one the seat belongs to, for the
 * private lines sent to it.  Accounts are left.
 */
void irc_identity_fold(char *id, enum irc_casemap map);

/* Removes mIRC formatting (bold, colours, italics, ...) from s in place. */
void irc_strip_codes(char *s);

/*
 * Splits rendered IRC text into protocol-safe lines: '\n' separates lines,
 * CR, NUL and CTCP's \x01 are dropped, every line is at most max bytes,
 * cut at UTF-8 character boundaries (at a space when one lies in the
 * second half of the line, which is then dropped) and never inside a
 * colour code; bold, italics, underline, reverse and colour carry over to
 * a continuation.  Lines without visible text are skipped.  Calls fn for
 * each line; returns the number of lines, or -1 when max is too small for
 * anything.
 */
int irc_split(const char *text, size_t len, size_t max,
    void (*fn)(const char *line, size_t len, void *arg), void *arg);
/*
 * The bytes a server adds around text when it relays "COMMAND target
 * :text" from mask: ":" mask " " command " " target " :" and CR LF.
 */
size_t irc_overhead(const char *mask, const char *command,
    const char *target);

/*
 * IRCv3 capability lists ("sasl=PLAIN,EXTERNAL multi-prefix ...").
 * Iterates the tokens of list from *pos: 1 with name (without a leading
 * '-', '~' or '=' and without a value) and *value / *vlen, 0 at the end.
 * *removed is 1 for a "-name" token (ACK of a removal, CAP DEL).
 */
int irc_cap_next(const char **pos, char *name, size_t namelen,
    const char **value, size_t *vlen, int *removed);
/* 1 when list offers name; *value as above (NULL when it has none). */
int irc_cap_find(const char *list, const char *name, const char **value,
    size_t *vlen);
/*
 * Builds a "CAP REQ" argument from the caps of wanted (NULL-terminated)
 * that offered lists, in wanted's order; returns how many (0: none).
 */
int irc_cap_request(const char *offered, const char *const *wanted,
    char *out, size_t outlen);
/* 1 when offered lists sasl with no mechanism list or one with PLAIN. */
int irc_cap_sasl_plain(const char *offered);

/*
 * SASL PLAIN: base64("user\0user\0password") as AUTHENTICATE arguments of
 * at most 400 bytes each, with a final "+" when the last chunk is exactly
 * 400 bytes long.  Calls fn per argument; returns their number.  Buffers
 * that held the password are wiped.
 */
int irc_sasl_plain(const char *user, const char *password,
    void (*fn)(const char *arg, void *ctx), void *ctx);

/* Base64 (RFC 4648, padded).  Encode writes a NUL-terminated string; out
 * needs 4 * ((len + 2) / 3) + 1 bytes. */
void irc_base64_encode(const unsigned char *in, size_t len, char *out);
/* Decodes, skipping whitespace; returns the length, or -1 when invalid or
 * when it does not fit outlen. */
long irc_base64_decode(const char *in, size_t len, unsigned char *out,
    size_t outlen);

#endif
