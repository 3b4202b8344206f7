/*
 * cfg.c - typed reads of a JSON configuration (see cfg.h).
 *
 * Every error is one line "PATH: WHAT WAS EXPECTED".  Keys that start with
 * "//" are comments and pass cfg_keys() in every object.  Keys and values come
 * from a file a person wrote, so control characters in them are replaced
 * before they reach an error message (and from there a log line).
 *
 * Secrets are read from files, never from the configuration itself, so the
 * configuration can be shown and shared; their content is wiped from every
 * buffer that held it and never appears in an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfg.h"
#include "log.h"
#include "xmalloc.h"

/* The largest secret file read: passwords and tokens are short. */
#define CFG_SECRET_MAX 65536

/* Replaces control characters in a message with '?', so it stays one line. */
static void
cfg_clean(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
			*s = '?';
}

int
cfg_fail(char *err, size_t errlen, const char *path, const char *key,
    const char *fmt, ...)
{
	va_list ap;
	int n;

	if (err == NULL || errlen == 0)
		return -1;
	if (key == NULL)
		n = snprintf(err, errlen, "%s: ", *path != '\0' ? path :
		    "top level");
	else if (*path == '\0')
		n = snprintf(err, errlen, "%s: ", key);
	else
		n = snprintf(err, errlen, "%s.%s: ", path, key);
	if (n >= 0 && (size_t)n < errlen) {
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	cfg_clean(err);
	return -1;
}

void
cfg_path(char *out, size_t outlen, const char *path, const char *key)
{
	if (*path == '\0')
		snprintf(out, outlen, "%s", key);
	else
		snprintf(out, outlen, "%s.%s", path, key);
}

void
cfg_index(char *out, size_t outlen, const char *path, size_t index)
{
	snprintf(out, outlen, "%s[%zu]", path, index);
}

int
cfg_object(const json_t *v, const char *path, char *err, size_t errlen)
{
	if (!json_is_object(v))
		return cfg_fail(err, errlen, path, NULL, "expected an object");
	return 0;
}

static int
cfg_listed(const char *const *list, const char *key)
{
	if (list == NULL)
		return 0;
	for (; *list != NULL; list++)
		if (strcmp(*list, key) == 0)
			return 1;
	return 0;
}

int
cfg_keys(const json_t *obj, const char *path, const char *const *known,
    const char *const *known2, char *err, size_t errlen)
{
	const char *key;
	json_t *value;

	if (cfg_object(obj, path, err, errlen) != 0)
		return -1;
	/*
	 * Jansson keeps insertion order, so "first" is the file's order.
	 * JSON has no comments: a key starting with "//" is one, in any
	 * object, so an example file can explain itself.
	 */
	json_object_foreach((json_t *)obj, key, value) {
		if (strncmp(key, "//", 2) != 0 && !cfg_listed(known, key) &&
		    !cfg_listed(known2, key))
			return cfg_fail(err, errlen, path, key, "unknown key");
	}
	return 0;
}

/*
 * Looks key up in obj: 0 with *out set when present, 1 when absent and
 * optional, -1 when absent and required.
 */
static int
cfg_get(const json_t *obj, const char *path, const char *key, int required,
    json_t **out, char *err, size_t errlen)
{
	*out = json_object_get(obj, key);
	if (*out != NULL)
		return 0;
	if (required)
		return cfg_fail(err, errlen, path, key, "missing");
	return 1;
}

int
cfg_string(const json_t *obj, const char *path, const char *key,
    int required, const char **out, char *err, size_t errlen)
{
	json_t *v;
	int rc;

	if ((rc = cfg_get(obj, path, key, required, &v, err, errlen)) != 0)
		return rc;
	if (!json_is_string(v))
		return cfg_fail(err, errlen, path, key, "expected a string");
	*out = json_string_value(v);
	return 0;
}

int
cfg_choice(const json_t *obj, const char *path, const char *key,
    const char *const *choices, int required, const char **out, char *err,
    size_t errlen)
{
	char list[512];
	size_t len = 0;
	json_t *v;
	int rc;

	if ((rc = cfg_get(obj, path, key, required, &v, err, errlen)) != 0)
		return rc;
	if (json_is_string(v) && cfg_listed(choices, json_string_value(v))) {
		*out = json_string_value(v);
		return 0;
	}
	list[0] = '\0';
	for (size_t i = 0; choices[i] != NULL && len < sizeof(list); i++) {
		rc = snprintf(list + len, sizeof(list) - len, "%s\"%s\"",
		    i > 0 ? ", " : "", choices[i]);
		if (rc < 0)
			break;
		len += (size_t)rc;
	}
	return cfg_fail(err, errlen, path, key, "expected one of %s", list);
}

int
cfg_int(const json_t *obj, const char *path, const char *key, long long
    min, long long max, int required, long long *out, char *err,
    size_t errlen)
{
	json_t *v;
	json_int_t n;
	int rc;

	if ((rc = cfg_get(obj, path, key, required, &v, err, errlen)) != 0)
		return rc;
	if (json_is_integer(v)) {
		n = json_integer_value(v);
		if (n >= min && n <= max) {
			*out = n;
			return 0;
		}
	}
	return cfg_fail(err, errlen, path, key, "expected an integer %lld-%lld",
	    min, max);
}

int
cfg_bool(const json_t *obj, const char *path, const char *key,
    int required, int *out, char *err, size_t errlen)
{
	json_t *v;
	int rc;

	if ((rc = cfg_get(obj, path, key, required, &v, err, errlen)) != 0)
		return rc;
	if (!json_is_boolean(v))
		return cfg_fail(err, errlen, path, key,
		    "expected true or false");
	*out = json_is_true(v);
	return 0;
}

int
cfg_strings(const json_t *obj, const char *path, const char *key,
    int required, const json_t **out, char *err, size_t errlen)
{
	json_t *v, *item;
	size_t i;
	int rc;

	if ((rc = cfg_get(obj, path, key, required, &v, err, errlen)) != 0)
		return rc;
	if (!json_is_array(v))
		return cfg_fail(err, errlen, path, key,
		    "expected an array of strings");
	json_array_foreach(v, i, item) {
		if (!json_is_string(item))
			return cfg_fail(err, errlen, path, key,
			    "expected an array of strings");
	}
	*out = v;
	return 0;
}

/* Frees a buffer that may have held a secret, wiping it first. */
static void
cfg_wipe_free(char *buf, size_t len)
{
	if (buf == NULL)
		return;
	explicit_bzero(buf, len);
	free(buf);
}

/*
 * Reads a whole regular file of at most CFG_SECRET_MAX bytes into a new
 * NUL-terminated buffer.  Returns 0, or an errno value (EFBIG: too large,
 * EINVAL: not a regular file).
 */
static int
cfg_read_file(const char *file, char **out, size_t *outlen)
{
	struct stat st;
	char *buf;
	size_t len = 0;
	ssize_t n;
	int fd, e;

	/* O_NONBLOCK: a FIFO must not hang check-config; it is refused. */
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return errno;
	if (fstat(fd, &st) != 0) {
		e = errno;
		close(fd);
		return e;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
	}
	buf = xmalloc(CFG_SECRET_MAX + 1);
	/* Reads one byte past the limit to tell "too large" from "full". */
	for (;;) {
		n = read(fd, buf + len, CFG_SECRET_MAX + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			close(fd);
			cfg_wipe_free(buf, CFG_SECRET_MAX + 1);
			return e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > CFG_SECRET_MAX) {
			close(fd);
			cfg_wipe_free(buf, CFG_SECRET_MAX + 1);
			return EFBIG;
		}
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
}

int
cfg_secret(const json_t *obj, const char *path, const char *key_file,
    int required, char **out, char *err, size_t errlen)
{
	const char *name, *dir;
	char file[4096], shown[4200], *buf = NULL, *secret;
	size_t len = 0;
	int rc, e;

	if ((rc = cfg_string(obj, path, key_file, required, &name, err,
	    errlen)) != 0)
		return rc;
	/*
	 * A credential name is never repeated in a message: an admin who
	 * typed the secret itself where its name belongs would find it in
	 * the journal.  The key's path says which name is meant.  An
	 * absolute path is shown, since it is what a fix needs.
	 */
	if (name[0] == '/') {
		if (strlen(name) >= sizeof(file))
			return cfg_fail(err, errlen, path, key_file,
			    "the path is too long");
		memcpy(file, name, strlen(name) + 1);
		snprintf(shown, sizeof(shown), "%s", file);
	} else if (name[0] != '\0' && strchr(name, '/') == NULL &&
	    strcmp(name, ".") != 0 && strcmp(name, "..") != 0) {
		dir = getenv("CREDENTIALS_DIRECTORY");
		if (dir == NULL || *dir == '\0')
			return cfg_fail(err, errlen, path, key_file,
			    "a credential name, but "
			    "CREDENTIALS_DIRECTORY is not set (give an "
			    "absolute path, or LoadCredential= in the "
			    "service)");
		if ((size_t)snprintf(file, sizeof(file), "%s/%s", dir, name) >=
		    sizeof(file))
			return cfg_fail(err, errlen, path, key_file,
			    "the credential's path is too long");
		snprintf(shown, sizeof(shown), "the credential it names in %s",
		    dir);
	} else {
		return cfg_fail(err, errlen, path, key_file,
		    "expected an absolute path or a credential name "
		    "without '/'");
	}
	if ((e = cfg_read_file(file, &buf, &len)) != 0) {
		if (e == EFBIG)
			return cfg_fail(err, errlen, path, key_file,
			    "%s is larger than %d bytes", shown,
			    CFG_SECRET_MAX);
		if (e == EINVAL)
			return cfg_fail(err, errlen, path, key_file,
			    "%s is not a regular file", shown);
		return cfg_fail(err, errlen, path, key_file, "cannot read %s: %s",
		    shown, strerror(e));
	}
	/* One trailing newline is the file's end of line, not the secret. */
	rc = 0;
	if (len > 0 && buf[len - 1] == '\n') {
		buf[--len] = '\0';
		if (len > 0 && buf[len - 1] == '\r')
			buf[--len] = '\0';
	}
	/*
	 * A line break or NUL inside a secret would end it early or, sent
	 * as an IRC PASS, inject a command: refuse them outright.
	 */
	if (len == 0)
		rc = cfg_fail(err, errlen, path, key_file, "%s is empty", shown);
	else if (strlen(buf) != len)
		rc = cfg_fail(err, errlen, path, key_file,
		    "%s holds a NUL byte; it must hold the secret as one line",
		    shown);
	else if (strchr(buf, '\n') != NULL)
		rc = cfg_fail(err, errlen, path, key_file,
		    "%s holds more than one line; it must hold the secret as "
		    "one line", shown);
	else if (strchr(buf, '\r') != NULL)
		rc = cfg_fail(err, errlen, path, key_file,
		    "%s holds a carriage return (CR) that does not end its "
		    "line; it must hold the secret as one line", shown);
	if (rc != 0) {
		cfg_wipe_free(buf, CFG_SECRET_MAX + 1);
		return rc;
	}
	secret = xstrdup(buf);
	cfg_wipe_free(buf, CFG_SECRET_MAX + 1);
	/* Should anything quote it back (a server's error), the log hides it. */
	log_secret(secret);
	*out = secret;
	return 0;
}

void
cfg_secret_free(char *secret)
{
	if (secret == NULL)
		return;
	explicit_bzero(secret, strlen(secret));
	free(secret);
}
