// SPDX-License-Identifier: GPL-2.0-only
/*
 * webconf - the web configuration file of prf daemon, in the format
 * Prometheus exporters share (their --web.config.file):
 *
 *   tls_server_config:
 *     cert_file: server.crt       # PEM; relative: to this file's directory
 *     key_file: server.key
 *     client_auth_type: NoClientCert   # the only one prf takes
 *     min_version: TLS12          # TLS10..TLS13; default TLS12
 *     max_version: TLS13
 *   basic_auth_users:
 *     alice: $2y$10$...           # bcrypt, as htpasswd -nBC 10 makes
 *
 * The other keys of the format (inline cert/key, client CAs, cipher
 * suites, curves, http_server_config, rate_limit) and any unknown key are
 * refused with their line: a setting silently ignored would be a hole.
 * Parsed by libyaml's document loader; the hashes checked by crypt_r.
 */
#define _GNU_SOURCE
#include <crypt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "err.h"
#include "webconf.h"

#define WEBCONF_MAX_FILE	(1 << 20)	/* a certificate, key or the file itself */

void webconf_free(struct webconf *w)
{
	size_t i;

	if (!w)
		return;
	free(w->path);
	free(w->cert_file);
	free(w->key_file);
	free(w->cert);
	free(w->key);
	free(w->priorities);
	for (i = 0; i < w->nusers; i++) {
		free(w->users[i].name);
		free(w->users[i].hash);
	}
	free(w->users);
	memset(w, 0, sizeof(*w));
}

/* The whole of a small file, NUL-terminated: malloc'ed, or NULL and errno. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = malloc(WEBCONF_MAX_FILE + 1);
	if (!buf) {
		fclose(f);
		errno = ENOMEM;
		return NULL;
	}
	n = fread(buf, 1, WEBCONF_MAX_FILE + 1, f);
	if (ferror(f) || n > WEBCONF_MAX_FILE) {
		int e = ferror(f) ? EIO : EFBIG;

		fclose(f);
		free(buf);
		errno = e;
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	return buf;
}

struct wload {
	yaml_document_t *doc;
	const char *path;
	char *err;
	size_t errlen;
};

/* A node's line, 1-based. */
static unsigned long line_of(const yaml_node_t *n)
{
	return (unsigned long)n->start_mark.line + 1;
}

static int bad(struct wload *l, const yaml_node_t *n, const char *why, const char *what)
{
	seterr(l->err, l->errlen, "%s:%lu: %s%s%s", l->path, line_of(n), why,
	       what ? ": " : "", what ? what : "");
	return -1;
}

/* The text of a scalar node, or NULL (not a scalar). */
static const char *scalar(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A mapping whose keys are scalars, none twice: 0, or -1 and err. */
static int check_mapping(struct wload *l, yaml_node_t *m)
{
	yaml_node_pair_t *p, *q;

	if (m->type != YAML_MAPPING_NODE)
		return bad(l, m, "want a mapping (key: value lines)", NULL);
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(l->doc, p->key);

		if (!k || !scalar(k))
			return bad(l, k ? k : m, "want a plain key", NULL);
		for (q = m->data.mapping.pairs.start; q < p; q++)
			if (!strcmp(scalar(yaml_document_get_node(l->doc, q->key)), scalar(k)))
				return bad(l, k, "key given twice", scalar(k));
	}
	return 0;
}

/* A section given as nothing ("tls_server_config:" alone) is no section. */
static int empty(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE && !n->data.scalar.length;
}

/* A path of the file: relative ones from the configuration's directory. */
static char *resolve(const char *conf, const char *p)
{
	const char *slash = strrchr(conf, '/');
	char *out;

	if (p[0] == '/' || !slash)
		return strdup(p);
	if (asprintf(&out, "%.*s/%s", (int)(slash - conf), conf, p) < 0)
		return NULL;
	return out;
}

/* TLS10..TLS13: 0..3, or -1. */
static int tls_version(const char *v)
{
	static const char *const names[] = { "TLS10", "TLS11", "TLS12", "TLS13" };
	int i;

	for (i = 0; i < 4; i++)
		if (!strcmp(v, names[i]))
			return i;
	return -1;
}

static int load_tls(struct wload *l, yaml_node_t *m, struct webconf *w)
{
	static const char *const refused[] = {
		"cert", "key", "client_ca_file", "client_ca", "client_allowed_sans",
		"cipher_suites", "curve_preferences", "prefer_server_cipher_suites",
	};
	yaml_node_pair_t *p;
	yaml_node_t *certn = m, *keyn = m;
	int min = 2, max = 3, i;
	size_t k;
	char prio[128];

	if (check_mapping(l, m))
		return -1;
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = yaml_document_get_node(l->doc, p->key);
		yaml_node_t *vn = yaml_document_get_node(l->doc, p->value);
		const char *key = scalar(kn), *v = vn ? scalar(vn) : NULL;

		for (k = 0; k < sizeof(refused) / sizeof(refused[0]); k++)
			if (!strcmp(key, refused[k]))
				return bad(l, kn, "not supported by prf daemon", key);
		if (!v)
			return bad(l, vn ? vn : kn, "want a single value", key);
		if (!strcmp(key, "cert_file") || !strcmp(key, "key_file")) {
			char **dst = key[0] == 'c' ? &w->cert_file : &w->key_file;

			if (!*v)
				return bad(l, vn, "empty", key);
			*dst = resolve(l->path, v);
			if (!*dst)
				return bad(l, vn, strerror(ENOMEM), NULL);
			if (key[0] == 'c')
				certn = vn;
			else
				keyn = vn;
		} else if (!strcmp(key, "client_auth_type")) {
			if (strcmp(v, "NoClientCert"))
				return bad(l, vn, "client_auth_type: only NoClientCert is supported",
					   v);
		} else if (!strcmp(key, "min_version") || !strcmp(key, "max_version")) {
			i = tls_version(v);
			if (i < 0)
				return bad(l, vn, "want TLS10, TLS11, TLS12 or TLS13", v);
			if (key[1] == 'i')
				min = i;
			else
				max = i;
		} else {
			return bad(l, kn, "unknown key in tls_server_config", key);
		}
	}
	if (!w->cert_file || !w->key_file)
		return bad(l, m, "tls_server_config: cert_file and key_file are both needed", NULL);
	if (min > max)
		return bad(l, m, "tls_server_config: min_version above max_version", NULL);
	w->cert = slurp(w->cert_file);
	if (!w->cert)
		return bad(l, certn, w->cert_file, strerror(errno));
	w->key = slurp(w->key_file);
	if (!w->key)
		return bad(l, keyn, w->key_file, strerror(errno));
	if (!strstr(w->cert, "-----BEGIN CERTIFICATE-----"))
		return bad(l, certn, w->cert_file, "no PEM certificate in it");
	if (!strstr(w->key, "PRIVATE KEY-----"))
		return bad(l, keyn, w->key_file, "no PEM private key in it");
	strcpy(prio, "NORMAL:-VERS-ALL");
	for (i = max; i >= min; i--)
		snprintf(prio + strlen(prio), sizeof(prio) - strlen(prio), ":+VERS-TLS1.%d", i);
	w->priorities = strdup(prio);
	if (!w->priorities)
		return bad(l, m, strerror(ENOMEM), NULL);
	w->tls = 1;
	return 0;
}

/* crypt(3)'s answer for pass under hash: 1 when it is hash (constant time), else 0. */
static int hash_matches(const char *pass, const char *hash)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *out;
	size_t i, n = strlen(hash);
	unsigned char diff = 0;

	if (!cd)
		return 0;
	out = crypt_r(pass, hash, cd);
	if (!out || strlen(out) != n) {
		free(cd);
		return 0;
	}
	for (i = 0; i < n; i++)
		diff |= (unsigned char)(out[i] ^ hash[i]);
	free(cd);
	return !diff;
}

/* A bcrypt hash crypt(3) takes: 1, else 0. */
static int hash_ok(const char *hash)
{
	struct crypt_data *cd;
	const char *out;
	int ok;

	if (strncmp(hash, "$2y$", 4) && strncmp(hash, "$2b$", 4) && strncmp(hash, "$2a$", 4))
		return 0;
	cd = calloc(1, sizeof(*cd));
	if (!cd)
		return 0;
	out = crypt_r("", hash, cd);
	ok = out && out[0] == '$' && strlen(out) == strlen(hash);
	free(cd);
	return ok;
}

static int load_users(struct wload *l, yaml_node_t *m, struct webconf *w)
{
	yaml_node_pair_t *p;
	size_t n;

	if (check_mapping(l, m))
		return -1;
	n = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
	w->users = calloc(n ? n : 1, sizeof(*w->users));
	if (!w->users)
		return bad(l, m, strerror(ENOMEM), NULL);
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = yaml_document_get_node(l->doc, p->key);
		yaml_node_t *vn = yaml_document_get_node(l->doc, p->value);
		const char *v = vn ? scalar(vn) : NULL;
		struct webuser *u = &w->users[w->nusers];

		if (!*scalar(kn) || strchr(scalar(kn), ':'))
			return bad(l, kn, "a user name, not empty and without ':'", NULL);
		if (!v || !hash_ok(v))
			return bad(l, vn ? vn : kn,
				   "want a bcrypt hash ($2y$ or $2b$, as htpasswd -nBC 10 USER makes)",
				   scalar(kn));
		u->name = strdup(scalar(kn));
		u->hash = strdup(v);
		w->nusers++;
		if (!u->name || !u->hash)
			return bad(l, kn, strerror(ENOMEM), NULL);
	}
	return 0;
}

int webconf_load(const char *path, struct webconf *out, char *err, size_t errlen)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	yaml_node_pair_t *p;
	struct webconf w = { 0 };
	struct wload l = { &doc, path, err, errlen };
	char *text = slurp(path);
	int ret = -1;

	if (!text) {
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!yaml_parser_initialize(&parser)) {
		free(text);
		seterr(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
	if (!yaml_parser_load(&parser, &doc)) {
		seterr(err, errlen, "%s:%lu: %s%s%s", path,
		       (unsigned long)parser.problem_mark.line + 1,
		       parser.problem ? parser.problem : "not YAML",
		       parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		free(text);
		return -1;
	}
	w.path = strdup(path);
	if (!w.path) {
		seterr(err, errlen, "%s: %s", path, strerror(ENOMEM));
		goto out;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root || empty(root)) {	/* an empty file: plain HTTP, no authentication */
		ret = 0;
		goto out;
	}
	if (check_mapping(&l, root))
		goto out;
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = yaml_document_get_node(&doc, p->key);
		yaml_node_t *vn = yaml_document_get_node(&doc, p->value);
		const char *key = scalar(kn);

		if (!strcmp(key, "tls_server_config")) {
			if (!empty(vn) && load_tls(&l, vn, &w))
				goto out;
		} else if (!strcmp(key, "basic_auth_users")) {
			if (!empty(vn) && load_users(&l, vn, &w))
				goto out;
		} else if (!strcmp(key, "http_server_config") || !strcmp(key, "rate_limit")) {
			bad(&l, kn, "not supported by prf daemon", key);
			goto out;
		} else {
			bad(&l, kn, "unknown key", key);
			goto out;
		}
	}
	ret = 0;
out:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	free(text);
	if (ret)
		webconf_free(&w);
	else
		*out = w;
	return ret;
}

int webconf_check(const struct webconf *w, const char *user, const char *pass)
{
	const char *hash = NULL;
	size_t i;
	int match;

	if (!w->nusers)
		return 0;
	for (i = 0; i < w->nusers; i++)
		if (!strcmp(w->users[i].name, user))
			hash = w->users[i].hash;
	/* an unknown user costs a hash too: the answer's time tells nothing */
	match = hash_matches(pass, hash ? hash : w->users[0].hash);
	return hash && match;
}

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

int webconf_same_tls(const struct webconf *a, const struct webconf *b)
{
	return a->tls == b->tls && same(a->cert, b->cert) && same(a->key, b->key) &&
	       same(a->priorities, b->priorities);
}
