/*
 * cfg.h - typed reads of a JSON configuration with errors that name the
 * JSON path and what was expected, e.g.
 *
 *   networks[1].port: expected an integer 1-65535
 *   networks[0].channels[2].lang: expected one of "en", "ja"
 *   networks[0].prot: unknown key
 *
 * The config reader (config.c) and every adapter's init() use these, so all
 * configuration errors read the same.  path is the JSON path of obj ("" for
 * the root; "networks[1]" for an element); a key's path is path + "." + key
 * (just key at the root).  Every function returns 0 on success, 1 when an
 * optional key is absent (out untouched), -1 with err filled.
 */
#ifndef STICHBOT_CFG_H
#define STICHBOT_CFG_H

#include <stddef.h>

#include <jansson.h>

/*
 * Writes "PATH.KEY: MESSAGE" into err ("KEY: ..." at the root, "PATH: ..."
 * when key is NULL) with control characters replaced, and returns -1: the
 * one way every configuration error is worded, here and in the adapters.
 */
int cfg_fail(char *err, size_t errlen, const char *path, const char *key,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Writes "path.key" (or "key" when path is empty) into out. */
void cfg_path(char *out, size_t outlen, const char *path, const char *key);
/* Writes "path[index]" into out. */
void cfg_index(char *out, size_t outlen, const char *path, size_t index);

/* Fails unless v is an object: "path: expected an object". */
int cfg_object(const json_t *v, const char *path, char *err, size_t errlen);
/*
 * Fails on the first key of obj not in known (NULL-terminated), or in
 * known2 when that is not NULL: "path.key: unknown key".
 */
int cfg_keys(const json_t *obj, const char *path, const char *const *known,
    const char *const *known2, char *err, size_t errlen);

/* A string; required: "path.key: missing" when absent. */
int cfg_string(const json_t *obj, const char *path, const char *key,
    int required, const char **out, char *err, size_t errlen);
/* One of choices (NULL-terminated): "expected one of \"a\", \"b\"". */
int cfg_choice(const json_t *obj, const char *path, const char *key,
    const char *const *choices, int required, const char **out, char *err,
    size_t errlen);
/* An integer in [min, max]: "expected an integer MIN-MAX". */
int cfg_int(const json_t *obj, const char *path, const char *key, long long
    min, long long max, int required, long long *out, char *err,
    size_t errlen);
/* true or false: "expected true or false". */
int cfg_bool(const json_t *obj, const char *path, const char *key,
    int required, int *out, char *err, size_t errlen);
/* An array of strings: "expected an array of strings". */
int cfg_strings(const json_t *obj, const char *path, const char *key,
    int required, const json_t **out, char *err, size_t errlen);

/*
 * A secret given as KEY_file: an absolute path, or a bare name looked up in
 * $CREDENTIALS_DIRECTORY (systemd LoadCredential=).  The file's content
 * without a trailing newline goes into a new string in *out (the caller
 * frees it, after wiping it with cfg_secret_free()).  Errors name the key
 * and the file but never the content.
 */
int cfg_secret(const json_t *obj, const char *path, const char *key_file,
    int required, char **out, char *err, size_t errlen);
void cfg_secret_free(char *secret);

#endif
