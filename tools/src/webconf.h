/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * webconf - prf daemon's web configuration (--web-config): the YAML file
 * Prometheus exporters share (tls_server_config, basic_auth_users),
 * read with libyaml; passwords checked against their bcrypt hashes with
 * crypt(3).
 */
#ifndef PRF_WEBCONF_H
#define PRF_WEBCONF_H

#include <stddef.h>

struct webuser {
	char *name, *hash;
};

struct webconf {
	char *path;			/* the file it was read from */
	int tls;			/* tls_server_config given */
	char *cert_file, *key_file;	/* as resolved (relative: to the file's directory) */
	char *cert, *key;		/* their PEM text, read at load */
	char *priorities;		/* GnuTLS priority string (min_version, max_version) */
	struct webuser *users;		/* basic_auth_users; none: no authentication */
	size_t nusers;
};

/*
 * webconf_load - read path into *w: 0, or -1 and err ("FILE:LINE: why" for
 * an unknown key, a bad value, a hash crypt(3) does not take, a certificate
 * or key file that cannot be read).  *w is untouched when it fails.
 */
int webconf_load(const char *path, struct webconf *w, char *err, size_t errlen);
void webconf_free(struct webconf *w);

/* 1 when user and pass match one of w's users (constant time in pass), else 0. */
int webconf_check(const struct webconf *w, const char *user, const char *pass);

/* 1 when a and b serve the same TLS (certificate, key, priorities). */
int webconf_same_tls(const struct webconf *a, const struct webconf *b);

#endif /* PRF_WEBCONF_H */
