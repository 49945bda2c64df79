/*
 * ssebench: the streaming half of the benchmark harness, in C over epoll so that it holds thousands of
 * Server-Sent-Event streams for a small fraction of a CPU (the Node load generator and upstream of
 * bench/load.ts and bench/upstream.ts cost more per event than the proxies they measure).
 *
 *   ssebench upstream [--port 0] [--host 127.0.0.1]
 *       A loopback model API: POST /v1/chat/completions (OpenAI), /v1/messages (Anthropic) and
 *       /v1/responses (OpenAI Responses), as JSON or, with "stream": true, as SSE: `chunks` events `gap`
 *       ms apart, the first after `delay` ms. Every text delta is "tok<i>@<t> ": its index in the stream
 *       and the CLOCK_MONOTONIC microsecond it was written, so a client on the same machine can tell the
 *       order of events and what each hop added to each gap. POST /__bench/config {delayMs, chunks, gapMs}
 *       sets the defaults, GET /__bench/stats answers {requests}, the x-bench-* headers override per
 *       request, as in bench/upstream.ts. Prints READY {"port":N}.
 *
 *   ssebench load --port N [--host H] [--path P] [-H 'name: value']... --body-file F --streams N
 *                 [--ramp-ms 0] [--timeout-ms 60000] [--done '[DONE]']
 *       Opens N streams (one connection each), the i-th at i * ramp / N ms, reads each to its end and
 *       prints one JSON object: counts (ok, errors, incomplete, out of order), the peak of streams open at
 *       once, and summaries (ms) of the time to the first event, the stream's duration, the gap between
 *       consecutive text events, the gap added on the way (received gap minus sent gap) and each event's
 *       delay from the upstream's write.
 *
 *   ssebench parse [--split N] < response      the response parser alone, fed N bytes at a time (tests)
 *   ssebench schedule --streams N --events E --gap-ms G [--ramp-ms R]
 *       the timer heap alone: prints the (stream, event, due) sequence it pops (tests)
 *
 * Built by bench/sse.ts with the system C compiler (Debian's gcc): cc -O2 -o ssebench ssebench.c
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------------- */
/* Small pieces                                                                                      */

static int64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "ssebench: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(2);
}

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) die("out of memory");
  return q;
}

typedef struct {
  char *p;
  size_t len, cap;
} buf_t;

static void buf_reserve(buf_t *b, size_t extra) {
  if (b->len + extra <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra) cap *= 2;
  b->p = xrealloc(b->p, cap);
  b->cap = cap;
}
static void buf_add(buf_t *b, const char *s, size_t n) {
  buf_reserve(b, n + 1);
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = 0;
}
static void buf_printf(buf_t *b, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    size_t room = b->cap - b->len;
    va_start(ap, fmt);
    int n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n < 0) die("vsnprintf");
    if ((size_t)n < room) {
      b->len += (size_t)n;
      return;
    }
    buf_reserve(b, (size_t)n + 1);
  }
}
static void buf_drop(buf_t *b, size_t n) {
  if (n >= b->len) {
    b->len = 0;
  } else {
    memmove(b->p, b->p + n, b->len - n);
    b->len -= n;
  }
  if (b->p) b->p[b->len] = 0;
}
static void buf_free(buf_t *b) {
  free(b->p);
  b->p = NULL;
  b->len = b->cap = 0;
}

static int set_nonblock(int fd) { return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

/** Case-insensitive search of `needle` in the first `n` bytes of `hay`. */
static const char *memcasemem(const char *hay, size_t n, const char *needle) {
  size_t k = strlen(needle);
  if (k > n) return NULL;
  for (size_t i = 0; i + k <= n; i++)
    if (strncasecmp(hay + i, needle, k) == 0) return hay + i;
  return NULL;
}

/** Value of header `name` (without the colon) in a header block, or NULL; its length in *len. */
static const char *header_value(const char *h, size_t n, const char *name, size_t *len) {
  size_t k = strlen(name);
  const char *p = h, *end = h + n;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    if ((size_t)(eol - p) > k && strncasecmp(p, name, k) == 0 && p[k] == ':') {
      const char *v = p + k + 1;
      while (v < eol && (*v == ' ' || *v == '\t')) v++;
      const char *e = eol;
      while (e > v && (e[-1] == '\r' || e[-1] == ' ')) e--;
      *len = (size_t)(e - v);
      return v;
    }
    p = eol + 1;
  }
  return NULL;
}

/** Position just after the blank line that ends a header block, or 0 when it has not arrived. */
static size_t header_end(const char *p, size_t n) {
  const char *e = memmem(p, n, "\r\n\r\n", 4);
  if (e) return (size_t)(e - p) + 4;
  e = memmem(p, n, "\n\n", 2);
  return e ? (size_t)(e - p) + 2 : 0;
}

/* The chunked transfer coding, decoded incrementally. */
typedef struct {
  int state; /* 0 size line, 1 data, 2 CRLF after data, 3 trailers, 4 done */
  size_t left;
} chunked_t;

/**
 * Decodes what it can of `in` (consuming it) into `out`. Returns 1 when the body ended, 0 when more is
 * needed, -1 on a malformed body.
 */
static int chunked_feed(chunked_t *c, buf_t *in, buf_t *out) {
  size_t pos = 0;
  int rc = 0;
  while (pos < in->len && c->state != 4) {
    const char *p = in->p + pos;
    size_t n = in->len - pos;
    if (c->state == 0) {
      const char *eol = memchr(p, '\n', n);
      if (!eol) {
        if (n > 64) rc = -1;
        break;
      }
      char *endp;
      unsigned long v = strtoul(p, &endp, 16);
      if (endp == p) {
        rc = -1;
        break;
      }
      pos += (size_t)(eol - p) + 1;
      c->left = v;
      c->state = v == 0 ? 3 : 1;
    } else if (c->state == 1) {
      size_t take = n < c->left ? n : c->left;
      buf_add(out, p, take);
      pos += take;
      c->left -= take;
      if (c->left == 0) c->state = 2;
    } else if (c->state == 2) {
      const char *eol = memchr(p, '\n', n);
      if (!eol) break;
      pos += (size_t)(eol - p) + 1;
      c->state = 0;
    } else if (c->state == 3) {
      /* Trailers: lines up to an empty one. */
      const char *eol = memchr(p, '\n', n);
      if (!eol) break;
      size_t linelen = (size_t)(eol - p);
      pos += linelen + 1;
      if (linelen == 0 || (linelen == 1 && p[0] == '\r')) c->state = 4;
    }
  }
  buf_drop(in, pos);
  if (rc < 0) return -1;
  return c->state == 4 ? 1 : 0;
}

/* Growable array of samples (ms). */
typedef struct {
  double *v;
  size_t n, cap;
} rec_t;

static void rec_add(rec_t *r, double x) {
  if (r->n == r->cap) {
    r->cap = r->cap ? r->cap * 2 : 1024;
    r->v = xrealloc(r->v, r->cap * sizeof(double));
  }
  r->v[r->n++] = x;
}
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
/** Nearest-rank percentile of a sorted array, as bench/stats.ts. */
static double pct(const double *a, size_t n, double p) {
  if (n == 0) return 0;
  if (p <= 0) return a[0];
  if (p >= 100) return a[n - 1];
  size_t rank = (size_t)((p / 100.0) * (double)n);
  if ((double)rank < (p / 100.0) * (double)n) rank++;
  if (rank < 1) rank = 1;
  if (rank > n) rank = n;
  return a[rank - 1];
}
static void rec_json(buf_t *o, const char *name, rec_t *r) {
  if (r->n == 0) {
    buf_printf(o, "\"%s\":{\"n\":0}", name);
    return;
  }
  qsort(r->v, r->n, sizeof(double), cmp_double);
  double sum = 0;
  for (size_t i = 0; i < r->n; i++) sum += r->v[i];
  buf_printf(o, "\"%s\":{\"n\":%zu,\"mean\":%.4f,\"min\":%.4f,\"p50\":%.4f,\"p90\":%.4f,\"p99\":%.4f,\"p999\":%.4f,\"max\":%.4f}", name,
             r->n, sum / (double)r->n, r->v[0], pct(r->v, r->n, 50), pct(r->v, r->n, 90), pct(r->v, r->n, 99), pct(r->v, r->n, 99.9),
             r->v[r->n - 1]);
}

/* A JSON string literal of `s` (error samples). */
static void json_str(buf_t *o, const char *s) {
  buf_add(o, "\"", 1);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') {
      char e[2] = {'\\', (char)ch};
      buf_add(o, e, 2);
    } else if (ch < 0x20) {
      buf_printf(o, "\\u%04x", ch);
    } else {
      buf_add(o, (const char *)&ch, 1);
    }
  }
  buf_add(o, "\"", 1);
}

/* ------------------------------------------------------------------------------------------------- */
/* The timer heap (upstream events, and the schedule self-test)                                      */

typedef struct {
  int64_t due;
  uint32_t id;  /* connection slot */
  uint32_t gen; /* the slot's generation when scheduled: a stale entry is skipped */
} timer_t_;

typedef struct {
  timer_t_ *a;
  size_t n, cap;
} heap_t;

static int tless(const timer_t_ *x, const timer_t_ *y) { return x->due < y->due || (x->due == y->due && x->id < y->id); }

static void heap_push(heap_t *h, timer_t_ t) {
  if (h->n == h->cap) {
    h->cap = h->cap ? h->cap * 2 : 1024;
    h->a = xrealloc(h->a, h->cap * sizeof(timer_t_));
  }
  size_t i = h->n++;
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!tless(&t, &h->a[p])) break;
    h->a[i] = h->a[p];
    i = p;
  }
  h->a[i] = t;
}
static timer_t_ heap_pop(heap_t *h) {
  timer_t_ top = h->a[0];
  timer_t_ last = h->a[--h->n];
  size_t i = 0;
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    const timer_t_ *best = &last;
    if (l < h->n && tless(&h->a[l], best)) {
      m = l;
      best = &h->a[l];
    }
    if (r < h->n && tless(&h->a[r], best)) m = r;
    if (m == i) break;
    h->a[i] = h->a[m];
    i = m;
  }
  if (h->n) h->a[i] = last;
  return top;
}

/* ------------------------------------------------------------------------------------------------- */
/* Upstream                                                                                          */

enum fmt { F_CHAT, F_MESSAGES, F_RESPONSES };

typedef struct {
  int fd;
  uint32_t gen;
  uint32_t slot; /* index in uconns: the epoll tag and the timer's id */
  buf_t in, out, body;
  int reading_body; /* headers parsed, body arriving */
  size_t body_left; /* content-length body */
  int chunked_body;
  chunked_t ch;
  char path[64];
  char method[8];
  /* headers of the request being read */
  int h_delay, h_chunks, h_gap; /* -1: not given */
  /* the stream being written */
  int streaming;
  enum fmt f;
  int i, chunks, usage;
  int64_t start;
  double gap_ms;
  char model[96];
  int prompt_tokens;
  buf_t pending; /* a JSON answer waiting for its delay */
  int want_out;  /* EPOLLOUT registered */
  int close_after;
} uconn;

static struct {
  double delay_ms, gap_ms;
  int chunks;
  long served;
} U = {0, 20, 64, 0};

static uconn **uconns;
static size_t n_uconns;
static int uep;
static heap_t uheap;

static const char *CONTENT = "Gatehouse benchmark reply. Gatehouse benchmark reply. Gatehouse benchmark reply. Gatehouse benchmark reply. "
                             "Gatehouse benchmark reply. Gatehouse benchmark reply. Gatehouse benchmark reply. Gatehouse benchmark reply.";

static uint32_t *ufree;
static size_t n_ufree, cap_ufree;

static void u_close(uconn *c) {
  epoll_ctl(uep, EPOLL_CTL_DEL, c->fd, NULL);
  close(c->fd);
  c->fd = -1;
  if (n_ufree == cap_ufree) {
    cap_ufree = cap_ufree ? cap_ufree * 2 : 1024;
    ufree = xrealloc(ufree, cap_ufree * sizeof(uint32_t));
  }
  ufree[n_ufree++] = c->slot;
  c->gen++;
  c->streaming = 0;
  buf_free(&c->in);
  buf_free(&c->out);
  buf_free(&c->body);
  buf_free(&c->pending);
}

static void u_flush(uconn *c) {
  while (c->out.len) {
    ssize_t w = write(c->fd, c->out.p, c->out.len);
    if (w > 0) {
      buf_drop(&c->out, (size_t)w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    u_close(c);
    return;
  }
  int on = c->out.len > 0;
  if (on != c->want_out) {
    c->want_out = on;
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | (on ? EPOLLOUT : 0), .data.u32 = c->slot};
    epoll_ctl(uep, EPOLL_CTL_MOD, c->fd, &ev);
  }
  if (!c->out.len && c->close_after) u_close(c);
}

/** Appends one chunk of the chunked coding holding `s` to the connection's output. */
static void u_chunk(uconn *c, const char *s, size_t n) {
  buf_printf(&c->out, "%zx\r\n", n);
  buf_add(&c->out, s, n);
  buf_add(&c->out, "\r\n", 2);
}

static void u_respond(uconn *c, int status, const char *ctype, const char *body, size_t n) {
  const char *reason = status == 200 ? "OK" : status == 404 ? "Not Found" : "Bad Request";
  buf_printf(&c->out, "HTTP/1.1 %d %s\r\ncontent-type: %s\r\ncontent-length: %zu\r\nconnection: keep-alive\r\n\r\n", status, reason,
             ctype, n);
  buf_add(&c->out, body, n);
}

/** The value of a JSON number member `"name": 12.5` in `s`, or `dflt`. */
static double json_num(const char *s, const char *name, double dflt) {
  char key[64];
  snprintf(key, sizeof key, "\"%s\"", name);
  const char *p = strstr(s, key);
  if (!p) return dflt;
  p += strlen(key);
  while (*p == ' ' || *p == ':') p++;
  char *e;
  double v = strtod(p, &e);
  return e == p ? dflt : v;
}
/** Whether `"name": true` appears in `s`. */
static int json_true(const char *s, const char *name) {
  char key[64];
  snprintf(key, sizeof key, "\"%s\"", name);
  for (const char *p = strstr(s, key); p; p = strstr(p + 1, key)) {
    const char *q = p + strlen(key);
    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r' || *q == ':') q++;
    if (strncmp(q, "true", 4) == 0) return 1;
  }
  return 0;
}
/** The first `"model": "..."` of `s` (plain characters only), or "bench-model". */
static void json_model(const char *s, char *out, size_t cap) {
  snprintf(out, cap, "bench-model");
  const char *p = strstr(s, "\"model\"");
  if (!p) return;
  p += 7;
  while (*p == ' ' || *p == ':') p++;
  if (*p != '"') return;
  p++;
  size_t i = 0;
  while (p[i] && p[i] != '"' && p[i] != '\\' && i + 1 < cap) i++;
  if (p[i] != '"') return;
  memcpy(out, p, i);
  out[i] = 0;
}

static void u_schedule(uconn *c, int64_t due) { heap_push(&uheap, (timer_t_){due, c->slot, c->gen}); }

/** Writes event `c->i` of the stream (and, for the last, the end of the body). */
static void u_event(uconn *c) {
  char ev[1024];
  int n = 0;
  int last = c->i >= c->chunks - 1;
  long long t = (long long)now_us();
  const char *m = c->model;
  if (c->f == F_CHAT) {
    if (!last) {
      n = snprintf(ev, sizeof ev,
                   "data: {\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1795651200,\"model\":\"%s\",\"choices\":[{"
                   "\"index\":0,\"delta\":{%s\"content\":\"tok%d@%lld \"},\"logprobs\":null,\"finish_reason\":null}]}\n\n",
                   m, c->i == 0 ? "\"role\":\"assistant\"," : "", c->i, t);
    } else {
      n = snprintf(ev, sizeof ev,
                   "data: {\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1795651200,\"model\":\"%s\",\"choices\":[{"
                   "\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"stop\"}]}\n\n",
                   m);
      if (c->usage)
        n += snprintf(ev + n, sizeof ev - (size_t)n,
                      "data: {\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1795651200,\"model\":\"%s\",\"choices\":[],"
                      "\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":%d,\"total_tokens\":%d}}\n\n",
                      m, c->prompt_tokens, c->chunks, c->prompt_tokens + c->chunks);
      n += snprintf(ev + n, sizeof ev - (size_t)n, "data: [DONE]\n\n");
    }
  } else if (c->f == F_MESSAGES) {
    if (c->i == 0)
      n = snprintf(ev, sizeof ev,
                   "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_bench\",\"type\":\"message\",\"role\":"
                   "\"assistant\",\"model\":\"%s\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":%d,"
                   "\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
                   "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
                   m, c->prompt_tokens);
    if (!last)
      n += snprintf(ev + n, sizeof ev - (size_t)n,
                    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
                    "\"text\":\"tok%d@%lld \"}}\n\n",
                    c->i, t);
    else
      n += snprintf(ev + n, sizeof ev - (size_t)n,
                    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: "
                    "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":%d}}"
                    "\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
                    c->chunks);
  } else {
    if (c->i == 0)
      n = snprintf(ev, sizeof ev,
                   "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_bench\","
                   "\"object\":\"response\",\"created_at\":1795651200,\"status\":\"in_progress\",\"model\":\"%s\",\"output\":[]}}\n\n"
                   "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"sequence_number\":1,\"output_index\":0,"
                   "\"item\":{\"id\":\"msg_bench\",\"type\":\"message\",\"status\":\"in_progress\",\"role\":\"assistant\",\"content\":[]}}\n\n"
                   "event: response.content_part.added\ndata: {\"type\":\"response.content_part.added\",\"sequence_number\":2,\"item_id\":"
                   "\"msg_bench\",\"output_index\":0,\"content_index\":0,\"part\":{\"type\":\"output_text\",\"text\":\"\",\"annotations\":[]}}\n\n",
                   m);
    if (!last)
      n += snprintf(ev + n, sizeof ev - (size_t)n,
                    "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":%d,\"item_id\":"
                    "\"msg_bench\",\"output_index\":0,\"content_index\":0,\"delta\":\"tok%d@%lld \"}\n\n",
                    c->i + 3, c->i, t);
    else
      n += snprintf(ev + n, sizeof ev - (size_t)n,
                    "event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":%d,\"response\":{\"id\":\"resp_bench\","
                    "\"object\":\"response\",\"created_at\":1795651200,\"status\":\"completed\",\"model\":\"%s\",\"output\":[{\"id\":\"msg_bench\","
                    "\"type\":\"message\",\"status\":\"completed\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":"
                    "\"(streamed)\",\"annotations\":[]}]}],\"usage\":{\"input_tokens\":%d,\"output_tokens\":%d,\"total_tokens\":%d}}}\n\n",
                    c->i + 3, m, c->prompt_tokens, c->chunks, c->prompt_tokens + c->chunks);
  }
  if (n >= (int)sizeof ev) n = (int)sizeof ev - 1;
  u_chunk(c, ev, (size_t)n);
  if (last) {
    buf_add(&c->out, "0\r\n\r\n", 5);
    c->streaming = 0;
  } else {
    c->i++;
    u_schedule(c, c->start + (int64_t)((double)c->i * c->gap_ms * 1000.0));
  }
  u_flush(c);
}

static void u_handle(uconn *c, const char *hdrs, size_t hlen) {
  (void)hdrs;
  (void)hlen;
  const char *path = c->path;
  buf_add(&c->body, "", 0);
  const char *body = c->body.p ? c->body.p : "";
  if (strcmp(c->method, "POST") == 0 &&
      (strcmp(path, "/v1/chat/completions") == 0 || strcmp(path, "/v1/messages") == 0 || strcmp(path, "/v1/responses") == 0)) {
    U.served++;
    enum fmt f = path[4] == 'c' ? F_CHAT : path[4] == 'm' ? F_MESSAGES : F_RESPONSES;
    json_model(body, c->model, sizeof c->model);
    c->prompt_tokens = (int)(c->body.len / 4) > 0 ? (int)(c->body.len / 4) : 1;
    double delay = c->h_delay >= 0 ? c->h_delay : U.delay_ms;
    if (!json_true(body, "stream")) {
      buf_t j = {0};
      if (f == F_CHAT)
        buf_printf(&j,
                   "{\"id\":\"chatcmpl-bench%ld\",\"object\":\"chat.completion\",\"created\":1795651200,\"model\":\"%s\",\"choices\":[{\"index\":0,"
                   "\"message\":{\"role\":\"assistant\",\"content\":\"%s\"},\"logprobs\":null,\"finish_reason\":\"stop\"}],\"usage\":{"
                   "\"prompt_tokens\":%d,\"completion_tokens\":48,\"total_tokens\":%d}}",
                   U.served, c->model, CONTENT, c->prompt_tokens, c->prompt_tokens + 48);
      else if (f == F_MESSAGES)
        buf_printf(&j,
                   "{\"id\":\"msg_bench%ld\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"%s\",\"content\":[{\"type\":\"text\",\"text\":"
                   "\"%s\"}],\"stop_reason\":\"end_turn\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":%d,\"output_tokens\":48}}",
                   U.served, c->model, CONTENT, c->prompt_tokens);
      else
        buf_printf(&j,
                   "{\"id\":\"resp_bench%ld\",\"object\":\"response\",\"created_at\":1795651200,\"status\":\"completed\",\"model\":\"%s\","
                   "\"output\":[{\"type\":\"message\",\"id\":\"msg_bench\",\"status\":\"completed\",\"role\":\"assistant\",\"content\":[{\"type\":"
                   "\"output_text\",\"text\":\"%s\",\"annotations\":[]}]}],\"usage\":{\"input_tokens\":%d,\"output_tokens\":48,\"total_tokens\":%d}}",
                   U.served, c->model, CONTENT, c->prompt_tokens, c->prompt_tokens + 48);
      if (delay > 0) {
        /* Held back: the connection reads no further request until it is written. */
        buf_t out = c->out;
        c->out = c->pending;
        c->out.len = 0;
        u_respond(c, 200, "application/json", j.p, j.len);
        c->pending = c->out;
        c->out = out;
        c->streaming = 2;
        u_schedule(c, now_us() + (int64_t)(delay * 1000.0));
      } else {
        u_respond(c, 200, "application/json", j.p, j.len);
      }
      buf_free(&j);
      return;
    }
    c->streaming = 1;
    c->f = f;
    c->i = 0;
    c->chunks = c->h_chunks >= 0 ? c->h_chunks : U.chunks;
    if (c->chunks < 1) c->chunks = 1;
    c->gap_ms = c->h_gap >= 0 ? c->h_gap : U.gap_ms;
    c->usage = f != F_CHAT || json_true(body, "include_usage");
    buf_printf(&c->out, "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\n\r\n");
    c->start = now_us() + (int64_t)(delay * 1000.0);
    if (delay > 0)
      u_schedule(c, c->start);
    else
      u_event(c);
    return;
  }
  if (strcmp(c->method, "GET") == 0 && strcmp(path, "/v1/models") == 0) {
    const char *j = "{\"object\":\"list\",\"data\":[{\"id\":\"bench-model\",\"object\":\"model\",\"created\":0,\"owned_by\":\"bench\"}]}";
    u_respond(c, 200, "application/json", j, strlen(j));
    return;
  }
  if (strcmp(c->method, "POST") == 0 && strcmp(path, "/__bench/config") == 0) {
    double d = json_num(body, "delayMs", -1), ch = json_num(body, "chunks", -1), g = json_num(body, "gapMs", -1);
    if (d >= 0) U.delay_ms = d;
    if (ch >= 1) U.chunks = (int)ch;
    if (g >= 0) U.gap_ms = g;
    char j[160];
    int n = snprintf(j, sizeof j, "{\"delayMs\":%g,\"chunks\":%d,\"gapMs\":%g}", U.delay_ms, U.chunks, U.gap_ms);
    u_respond(c, 200, "application/json", j, (size_t)n);
    return;
  }
  if (strcmp(c->method, "GET") == 0 && strcmp(path, "/__bench/stats") == 0) {
    char j[64];
    int n = snprintf(j, sizeof j, "{\"requests\":%ld}", U.served);
    u_respond(c, 200, "application/json", j, (size_t)n);
    return;
  }
  const char *j = "{\"error\":{\"message\":\"no such route\",\"type\":\"invalid_request_error\"}}";
  u_respond(c, 404, "application/json", j, strlen(j));
}

static int hnum(const char *h, size_t n, const char *name) {
  size_t len;
  const char *v = header_value(h, n, name, &len);
  if (!v || len == 0 || len > 15) return -1;
  char tmp[16];
  memcpy(tmp, v, len);
  tmp[len] = 0;
  char *e;
  double d = strtod(tmp, &e);
  return e == tmp || d < 0 ? -1 : (int)d;
}

/** Parses what has arrived of requests on `c` and answers complete ones (one at a time). */
static void u_input(uconn *c) {
  for (;;) {
    if (c->fd < 0 || c->streaming) return; /* the next request waits for the stream to end */
    if (!c->reading_body) {
      size_t he = header_end(c->in.p ? c->in.p : "", c->in.len);
      if (!he) {
        if (c->in.len > 65536) u_close(c);
        return;
      }
      const char *h = c->in.p;
      sscanf(h, "%7s %63s", c->method, c->path);
      char *q = strchr(c->path, '?');
      if (q) *q = 0;
      size_t len;
      const char *te = header_value(h, he, "transfer-encoding", &len);
      c->chunked_body = te && memcasemem(te, len, "chunked") != NULL;
      const char *cl = header_value(h, he, "content-length", &len);
      c->body_left = cl ? strtoul(cl, NULL, 10) : 0;
      c->h_delay = hnum(h, he, "x-bench-delay-ms");
      c->h_chunks = hnum(h, he, "x-bench-chunks");
      c->h_gap = hnum(h, he, "x-bench-gap-ms");
      c->ch = (chunked_t){0, 0};
      c->body.len = 0;
      c->reading_body = 1;
      buf_drop(&c->in, he);
    }
    if (c->chunked_body) {
      int r = chunked_feed(&c->ch, &c->in, &c->body);
      if (r < 0) {
        u_close(c);
        return;
      }
      if (r == 0) return;
    } else {
      size_t take = c->in.len < c->body_left ? c->in.len : c->body_left;
      buf_add(&c->body, c->in.p ? c->in.p : "", take);
      buf_drop(&c->in, take);
      c->body_left -= take;
      if (c->body_left) return;
    }
    c->reading_body = 0;
    u_handle(c, NULL, 0);
    if (c->fd < 0) return;
    u_flush(c);
  }
}

static uconn *u_new(int fd) {
  size_t slot = n_uconns;
  if (n_ufree) slot = ufree[--n_ufree];
  if (slot == n_uconns) {
    uconns = xrealloc(uconns, (n_uconns + 1) * sizeof(uconn *));
    uconns[n_uconns] = calloc(1, sizeof(uconn));
    if (!uconns[n_uconns]) die("out of memory");
    n_uconns++;
  }
  uconn *c = uconns[slot];
  uint32_t gen = c->gen;
  memset(c, 0, sizeof *c);
  c->gen = gen + 1;
  c->slot = (uint32_t)slot;
  c->fd = fd;
  return c;
}

static int run_upstream(int argc, char **argv) {
  const char *host = "127.0.0.1";
  int port = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--port") && i + 1 < argc)
      port = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--host") && i + 1 < argc)
      host = argv[++i];
    else
      die("upstream: unknown option %s", argv[i]);
  }
  signal(SIGPIPE, SIG_IGN);
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (inet_pton(AF_INET, host, &a.sin_addr) != 1) die("bad host %s", host);
  if (bind(ls, (struct sockaddr *)&a, sizeof a) < 0) die("bind: %s", strerror(errno));
  if (listen(ls, 65535) < 0) die("listen: %s", strerror(errno));
  set_nonblock(ls);
  socklen_t al = sizeof a;
  getsockname(ls, (struct sockaddr *)&a, &al);
  printf("READY {\"port\":%d}\n", ntohs(a.sin_port));
  fflush(stdout);
  uep = epoll_create1(0);
  struct epoll_event lev = {.events = EPOLLIN, .data.u32 = UINT32_MAX};
  epoll_ctl(uep, EPOLL_CTL_ADD, ls, &lev);
  pid_t parent = getppid();
  int64_t next_parent_check = now_us() + 1000000;
  struct epoll_event evs[512];
  char rbuf[65536];
  for (;;) {
    int timeout = 1000;
    int64_t now = now_us();
    if (uheap.n) {
      int64_t d = uheap.a[0].due - now;
      timeout = d <= 0 ? 0 : (int)((d + 999) / 1000);
      if (timeout > 1000) timeout = 1000;
    }
    int n = epoll_wait(uep, evs, 512, timeout);
    if (n < 0 && errno != EINTR) die("epoll_wait: %s", strerror(errno));
    for (int k = 0; k < n; k++) {
      uint32_t tag = evs[k].data.u32;
      if (tag == UINT32_MAX) {
        for (;;) {
          int fd = accept4(ls, NULL, NULL, SOCK_NONBLOCK);
          if (fd < 0) break;
          setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          uconn *c = u_new(fd);
          struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.u32 = c->slot};
          epoll_ctl(uep, EPOLL_CTL_ADD, fd, &ev);
        }
        continue;
      }
      uconn *c = uconns[tag];
      if (c->fd < 0) continue;
      if (evs[k].events & EPOLLOUT) u_flush(c);
      if (c->fd < 0) continue;
      if (evs[k].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
        for (;;) {
          ssize_t r = read(c->fd, rbuf, sizeof rbuf);
          if (r > 0) {
            buf_add(&c->in, rbuf, (size_t)r);
            if ((size_t)r < sizeof rbuf) break;
            continue;
          }
          if (r < 0 && errno == EINTR) continue;
          if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
          u_close(c); /* EOF or error: the client left */
          break;
        }
        if (c->fd >= 0) u_input(c);
      }
    }
    now = now_us();
    while (uheap.n && uheap.a[0].due <= now) {
      timer_t_ t = heap_pop(&uheap);
      uconn *c = uconns[t.id];
      if (c->gen != t.gen || c->fd < 0 || !c->streaming) continue;
      if (c->streaming == 2) {
        buf_add(&c->out, c->pending.p, c->pending.len);
        c->pending.len = 0;
        c->streaming = 0;
        u_flush(c);
      } else {
        u_event(c);
      }
      if (c->fd >= 0 && !c->streaming) u_input(c); /* a request that arrived meanwhile */
    }
    if (now > next_parent_check) {
      next_parent_check = now + 1000000;
      if (getppid() != parent) return 0; /* do not outlive the bench */
    }
  }
}

/* ------------------------------------------------------------------------------------------------- */
/* Load: the response side of one stream                                                             */

typedef struct {
  int state; /* 0 headers, 1 body, 2 ended */
  int status;
  int mode; /* 0 chunked, 1 content-length, 2 until close */
  size_t left;
  chunked_t ch;
  buf_t raw; /* undecoded bytes */
  buf_t sse; /* decoded body not yet split into events */
  buf_t errbody;
  /* what was seen */
  long events, content, out_of_order;
  long last_seq;
  int done;
  int64_t first_recv, last_recv, last_content_recv, last_sent;
  int error; /* malformed */
} resp_t;

typedef struct {
  rec_t *gap, *added, *delay;
  const char *done_marker;
  long *seqs; /* parse mode: the sequence numbers seen */
  size_t nseqs, capseqs;
} sink_t;

/** Finds "tok<seq>@<us>" markers in an event: returns how many, and the first one's values. */
static int markers(const char *p, size_t n, long *seq, long long *sent) {
  int count = 0;
  const char *end = p + n;
  for (const char *q = memmem(p, n, "tok", 3); q; q = memmem(q + 3, (size_t)(end - q - 3), "tok", 3)) {
    const char *d = q + 3;
    if (d >= end || *d < '0' || *d > '9') continue;
    long s = 0;
    while (d < end && *d >= '0' && *d <= '9') s = s * 10 + (*d++ - '0');
    if (d >= end || *d != '@') continue;
    d++;
    long long t = 0;
    int digits = 0;
    while (d < end && *d >= '0' && *d <= '9') {
      t = t * 10 + (*d++ - '0');
      digits++;
    }
    if (!digits) continue;
    if (count == 0) {
      *seq = s;
      *sent = t;
    }
    count++;
  }
  return count;
}

/** Position of the end of the first event in `p` (after its blank line), or 0. */
static size_t event_end(const char *p, size_t n) {
  for (size_t i = 0; i + 1 < n; i++) {
    if (p[i] != '\n' && p[i] != '\r') continue;
    /* \n\n, \r\n\r\n, \r\r */
    if (p[i] == '\n' && p[i + 1] == '\n') return i + 2;
    if (p[i] == '\r' && p[i + 1] == '\r') return i + 2;
    if (p[i] == '\r' && p[i + 1] == '\n' && i + 3 < n + 0 && p[i + 2] == '\r' && p[i + 3] == '\n') return i + 4;
    if (p[i] == '\n' && p[i + 1] == '\r' && i + 2 < n && p[i + 2] == '\n') return i + 3;
  }
  return 0;
}

static void on_event(resp_t *r, sink_t *s, const char *p, size_t n, int64_t recv) {
  /* An event with nothing but comments and blank lines is not an event. */
  int has_field = 0;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || p[i - 1] == '\n' || p[i - 1] == '\r') {
      if (p[i] != ':' && p[i] != '\n' && p[i] != '\r') {
        has_field = 1;
        break;
      }
    }
  }
  if (!has_field) return;
  r->events++;
  if (r->events == 1) r->first_recv = recv;
  r->last_recv = recv;
  if (s->done_marker && memmem(p, n, s->done_marker, strlen(s->done_marker))) r->done = 1;
  long seq;
  long long sent;
  /* Exactly one marker: a text delta (events that repeat the whole text carry them all). */
  if (markers(p, n, &seq, &sent) != 1) return;
  /* The marker of the previous text event again: an event that repeats the text so far (a format's
     closing summary of a one-event text), not a new one. */
  if (r->content > 0 && seq == r->last_seq && sent == r->last_sent) return;
  if (s->seqs) {
    if (s->nseqs == s->capseqs) {
      s->capseqs = s->capseqs ? s->capseqs * 2 : 64;
      s->seqs = xrealloc(s->seqs, s->capseqs * sizeof(long));
    }
    s->seqs[s->nseqs++] = seq;
  }
  if (r->content > 0 && seq != r->last_seq + 1) r->out_of_order++;
  if (r->content == 0 && seq != 0) r->out_of_order++;
  if (r->content > 0) {
    double gap = (double)(recv - r->last_content_recv) / 1000.0;
    double sent_gap = (double)(sent - r->last_sent) / 1000.0;
    if (s->gap) rec_add(s->gap, gap);
    if (s->added) rec_add(s->added, gap - sent_gap);
  }
  if (s->delay) rec_add(s->delay, (double)(recv - sent) / 1000.0);
  r->content++;
  r->last_seq = seq;
  r->last_sent = sent;
  r->last_content_recv = recv;
}

static void split_events(resp_t *r, sink_t *s, int64_t recv, int final) {
  size_t pos = 0;
  for (;;) {
    size_t e = event_end(r->sse.p + pos, r->sse.len - pos);
    if (!e) break;
    on_event(r, s, r->sse.p + pos, e, recv);
    pos += e;
  }
  if (final && r->sse.len > pos) {
    on_event(r, s, r->sse.p + pos, r->sse.len - pos, recv);
    pos = r->sse.len;
  }
  buf_drop(&r->sse, pos);
}

/** Feeds bytes of the response; returns 1 once it has ended, -1 on a malformed response, else 0. */
static int resp_feed(resp_t *r, sink_t *s, const char *data, size_t n, int64_t recv) {
  buf_add(&r->raw, data, n);
  if (r->state == 0) {
    size_t he = header_end(r->raw.p, r->raw.len);
    if (!he) return r->raw.len > 65536 ? -1 : 0;
    if (sscanf(r->raw.p, "HTTP/1.%*d %d", &r->status) != 1) return -1;
    size_t len;
    const char *te = header_value(r->raw.p, he, "transfer-encoding", &len);
    const char *cl = header_value(r->raw.p, he, "content-length", &len);
    if (te && memcasemem(te, len + 0, "chunked"))
      r->mode = 0;
    else if (cl) {
      r->mode = 1;
      r->left = strtoul(cl, NULL, 10);
    } else
      r->mode = 2;
    buf_drop(&r->raw, he);
    r->state = 1;
  }
  if (r->state != 1) return r->state == 2;
  buf_t *dst = r->status == 200 ? &r->sse : &r->errbody;
  int ended = 0;
  if (r->mode == 0) {
    int c = chunked_feed(&r->ch, &r->raw, dst);
    if (c < 0) return -1;
    ended = c == 1;
  } else if (r->mode == 1) {
    size_t take = r->raw.len < r->left ? r->raw.len : r->left;
    buf_add(dst, r->raw.p, take);
    buf_drop(&r->raw, take);
    r->left -= take;
    ended = r->left == 0;
  } else {
    buf_add(dst, r->raw.p, r->raw.len);
    r->raw.len = 0;
  }
  if (r->status == 200) split_events(r, s, recv, ended);
  if (ended) r->state = 2;
  return ended;
}

/** The end of a close-delimited body. */
static void resp_eof(resp_t *r, sink_t *s, int64_t recv) {
  if (r->state == 1 && r->mode == 2) {
    if (r->status == 200) split_events(r, s, recv, 1);
    r->state = 2;
  }
}

static void resp_free(resp_t *r) {
  buf_free(&r->raw);
  buf_free(&r->sse);
  buf_free(&r->errbody);
}

/* ------------------------------------------------------------------------------------------------- */
/* Load                                                                                              */

typedef struct {
  int fd;
  int phase; /* 0 not started, 1 connecting, 2 sending, 3 reading, 4 finished */
  int64_t start;
  size_t sent;
  resp_t r;
} lconn;

static struct {
  long ok, errors, incomplete, out_of_order, events, content, open, max_open;
  char samples[5][200];
  int nsamples;
} L;

static void l_sample(const char *fmt, ...) {
  char msg[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  for (int i = 0; i < L.nsamples; i++)
    if (!strcmp(L.samples[i], msg)) return;
  if (L.nsamples < 5) snprintf(L.samples[L.nsamples++], sizeof L.samples[0], "%s", msg);
}

static lconn *cs;
static int ep;
static long finished;
static rec_t ttfb, duration;
static const char *done_marker_g;

/* Ends stream i: ok when the body ended with the done marker and nothing was out of order. */
static void finish(long i, const char *err) {
  lconn *c = &cs[i];
  if (c->phase == 4) return;
  if (c->fd >= 0) {
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
    L.open--;
  }
  c->phase = 4;
  finished++;
  resp_t *r = &c->r;
  L.events += r->events;
  L.content += r->content;
  L.out_of_order += r->out_of_order;
  if (!err && r->status != 200) {
    char snippet[120];
    size_t k = r->errbody.len < sizeof snippet - 1 ? r->errbody.len : sizeof snippet - 1;
    memcpy(snippet, r->errbody.p ? r->errbody.p : "", k);
    snippet[k] = 0;
    for (size_t j = 0; j < k; j++)
      if (snippet[j] == '\n' || snippet[j] == '\r') snippet[j] = ' ';
    l_sample("HTTP %d %s", r->status, snippet);
    L.errors++;
  } else if (err) {
    l_sample("%s", err);
    L.errors++;
    if (r->events > 0 && !r->done) L.incomplete++;
  } else if (!r->done) {
    l_sample("stream ended without %s", done_marker_g);
    L.errors++;
    L.incomplete++;
  } else if (r->out_of_order) {
    l_sample("events out of order");
    L.errors++;
  } else {
    L.ok++;
    rec_add(&ttfb, (double)(r->first_recv - c->start) / 1000.0);
    rec_add(&duration, (double)(r->last_recv - c->start) / 1000.0);
  }
  resp_free(r);
}


static int run_load(int argc, char **argv) {
  const char *host = "127.0.0.1", *path = "/v1/chat/completions", *body_file = NULL, *done_marker = "[DONE]";
  int port = 0;
  long streams = 1;
  double ramp_ms = 0, timeout_ms = 60000;
  buf_t hdrs = {0};
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) die("load: %s needs a value", a);
    i++;
    if (!strcmp(a, "--port"))
      port = atoi(v);
    else if (!strcmp(a, "--host"))
      host = v;
    else if (!strcmp(a, "--path"))
      path = v;
    else if (!strcmp(a, "-H"))
      buf_printf(&hdrs, "%s\r\n", v);
    else if (!strcmp(a, "--body-file"))
      body_file = v;
    else if (!strcmp(a, "--streams"))
      streams = atol(v);
    else if (!strcmp(a, "--ramp-ms"))
      ramp_ms = atof(v);
    else if (!strcmp(a, "--timeout-ms"))
      timeout_ms = atof(v);
    else if (!strcmp(a, "--done"))
      done_marker = v;
    else
      die("load: unknown option %s", a);
  }
  if (!port || streams < 1) die("load: --port and --streams are required");
  buf_t body = {0};
  if (body_file) {
    FILE *f = fopen(body_file, "rb");
    if (!f) die("load: %s: %s", body_file, strerror(errno));
    char tmp[8192];
    size_t r;
    while ((r = fread(tmp, 1, sizeof tmp, f)) > 0) buf_add(&body, tmp, r);
    fclose(f);
  }
  buf_t req = {0};
  buf_printf(&req, "POST %s HTTP/1.1\r\nhost: %s:%d\r\ncontent-length: %zu\r\n%s\r\n", path, host, port, body.len, hdrs.p ? hdrs.p : "");
  if (body.len) buf_add(&req, body.p, body.len);

  struct rlimit rl;
  getrlimit(RLIMIT_NOFILE, &rl);
  if (rl.rlim_cur < (rlim_t)streams + 64 && rl.rlim_max > rl.rlim_cur) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  signal(SIGPIPE, SIG_IGN);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) die("bad host %s", host);

  rec_t gap = {0}, added = {0}, delay = {0};
  sink_t sink = {.gap = &gap, .added = &added, .delay = &delay, .done_marker = done_marker};
  done_marker_g = done_marker;
  cs = calloc((size_t)streams, sizeof(lconn));
  if (!cs) die("out of memory");
  ep = epoll_create1(0);
  int64_t t0 = now_us() + 2000;
  for (long i = 0; i < streams; i++) {
    cs[i].fd = -1;
    cs[i].start = t0 + (int64_t)(ramp_ms * 1000.0 * (double)i / (double)streams);
  }
  long next = 0;
  struct epoll_event evs[1024];
  char rbuf[65536];
  int64_t next_timeout_scan = 0;
  int64_t timeout_us = (int64_t)(timeout_ms * 1000.0);

  int64_t started_at = now_us();
  while (finished < streams) {
    int64_t now = now_us();
    /* Start the streams that are due. */
    /* At most 256 connects per turn, so that streams already open are read between them. */
    for (int burst = 0; next < streams && cs[next].start <= now && burst < 256; burst++) {
      lconn *c = &cs[next];
      int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
      if (fd < 0) {
        finish(next++, strerror(errno));
        continue;
      }
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      c->fd = fd;
      L.open++;
      if (L.open > L.max_open) L.max_open = L.open;
      c->phase = 1;
      int rc = connect(fd, (struct sockaddr *)&addr, sizeof addr);
      if (rc < 0 && errno != EINPROGRESS) {
        char e[120];
        snprintf(e, sizeof e, "connect: %s", strerror(errno));
        finish(next++, e);
        continue;
      }
      struct epoll_event ev = {.events = EPOLLOUT | EPOLLIN | EPOLLRDHUP, .data.u64 = (uint64_t)next};
      epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
      next++;
    }
    int timeout = 100;
    if (next < streams && cs[next].start <= now) {
      timeout = 0;
    } else if (next < streams) {
      int64_t d = cs[next].start - now;
      timeout = d <= 0 ? 0 : (int)((d + 999) / 1000);
      if (timeout > 100) timeout = 100;
    }
    int n = epoll_wait(ep, evs, 1024, timeout);
    if (n < 0 && errno != EINTR) die("epoll_wait: %s", strerror(errno));
    int64_t recv = now_us();
    for (int k = 0; k < n; k++) {
      long i = (long)evs[k].data.u64;
      lconn *c = &cs[i];
      if (c->phase == 4) continue;
      uint32_t e = evs[k].events;
      if (c->phase == 1 && (e & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
        int err = 0;
        socklen_t el = sizeof err;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &el);
        if (err) {
          char m[120];
          snprintf(m, sizeof m, "connect: %s", strerror(err));
          finish(i, m);
          continue;
        }
        c->phase = 2;
      }
      if (c->phase == 2 && (e & EPOLLOUT)) {
        ssize_t w = write(c->fd, req.p + c->sent, req.len - c->sent);
        if (w > 0) c->sent += (size_t)w;
        if (w < 0 && errno != EAGAIN && errno != EINTR) {
          char m[120];
          snprintf(m, sizeof m, "write: %s", strerror(errno));
          finish(i, m);
          continue;
        }
        if (c->sent == req.len) {
          c->phase = 3;
          struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.u64 = (uint64_t)i};
          epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
        }
      }
      if (e & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
        for (;;) {
          ssize_t r = read(c->fd, rbuf, sizeof rbuf);
          if (r > 0) {
            int st = resp_feed(&c->r, &sink, rbuf, (size_t)r, recv);
            if (st < 0) {
              finish(i, "malformed response");
              break;
            }
            if (st == 1) {
              finish(i, NULL);
              break;
            }
            if ((size_t)r < sizeof rbuf) break;
            continue;
          }
          if (r < 0 && errno == EINTR) continue;
          if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
          if (r == 0 && c->r.state == 1 && c->r.mode == 2) {
            resp_eof(&c->r, &sink, recv);
            finish(i, NULL);
          } else if (r == 0) {
            finish(i, c->r.state == 0 ? "connection closed before the response" : "connection closed mid-stream");
          } else {
            char m[120];
            snprintf(m, sizeof m, "read: %s", strerror(errno));
            finish(i, m);
          }
          break;
        }
      }
    }
    if (recv >= next_timeout_scan) {
      next_timeout_scan = recv + 100000;
      for (long i = 0; i < next; i++)
        if (cs[i].phase != 4 && recv - cs[i].start > timeout_us) finish(i, "timed out");
    }
  }
  int64_t elapsed = now_us() - started_at;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double cpu_ms = (double)ru.ru_utime.tv_sec * 1000.0 + (double)ru.ru_utime.tv_usec / 1000.0 + (double)ru.ru_stime.tv_sec * 1000.0 +
                  (double)ru.ru_stime.tv_usec / 1000.0;
  buf_t o = {0};
  buf_printf(&o,
             "{\"streams\":%ld,\"ok\":%ld,\"errors\":%ld,\"incomplete\":%ld,\"outOfOrder\":%ld,\"events\":%ld,\"contentEvents\":%ld,"
             "\"maxOpen\":%ld,\"elapsedMs\":%.1f,\"cpuMs\":%.1f,\"errorSamples\":[",
             streams, L.ok, L.errors, L.incomplete, L.out_of_order, L.events, L.content, L.max_open, (double)elapsed / 1000.0, cpu_ms);
  for (int i = 0; i < L.nsamples; i++) {
    if (i) buf_add(&o, ",", 1);
    json_str(&o, L.samples[i]);
  }
  buf_add(&o, "],", 2);
  rec_json(&o, "ttfb", &ttfb);
  buf_add(&o, ",", 1);
  rec_json(&o, "duration", &duration);
  buf_add(&o, ",", 1);
  rec_json(&o, "gap", &gap);
  buf_add(&o, ",", 1);
  rec_json(&o, "addedGap", &added);
  buf_add(&o, ",", 1);
  rec_json(&o, "delay", &delay);
  buf_add(&o, "}\n", 2);
  fwrite(o.p, 1, o.len, stdout);
  return 0;
}

/* ------------------------------------------------------------------------------------------------- */
/* Self-test modes                                                                                   */

static int run_parse(int argc, char **argv) {
  size_t split = 1 << 20;
  const char *done_marker = "[DONE]";
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--split"))
      split = (size_t)atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--done"))
      done_marker = argv[i + 1];
    else
      die("parse: unknown option %s", argv[i]);
  }
  if (split < 1) split = 1;
  buf_t in = {0};
  char tmp[8192];
  size_t r;
  while ((r = fread(tmp, 1, sizeof tmp, stdin)) > 0) buf_add(&in, tmp, r);
  resp_t resp = {0};
  sink_t sink = {.done_marker = done_marker, .seqs = NULL};
  sink.seqs = xrealloc(NULL, 64 * sizeof(long));
  sink.capseqs = 64;
  int st = 0;
  for (size_t pos = 0; pos < in.len && st == 0; pos += split) {
    size_t k = in.len - pos < split ? in.len - pos : split;
    st = resp_feed(&resp, &sink, in.p + pos, k, 0);
  }
  if (st == 0) resp_eof(&resp, &sink, 0);
  buf_t o = {0};
  buf_printf(&o, "{\"status\":%d,\"ended\":%s,\"malformed\":%s,\"events\":%ld,\"contentEvents\":%ld,\"done\":%s,\"outOfOrder\":%ld,\"seqs\":[",
             resp.status, resp.state == 2 ? "true" : "false", st < 0 ? "true" : "false", resp.events, resp.content,
             resp.done ? "true" : "false", resp.out_of_order);
  for (size_t i = 0; i < sink.nseqs; i++) buf_printf(&o, "%s%ld", i ? "," : "", sink.seqs[i]);
  buf_add(&o, "]}\n", 3);
  fwrite(o.p, 1, o.len, stdout);
  return 0;
}

/** Pops the whole schedule of `streams` streams of `events` events `gap` ms apart, started over `ramp` ms. */
static int run_schedule(int argc, char **argv) {
  long streams = 1, events = 1;
  double gap = 1000, ramp = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--streams"))
      streams = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--events"))
      events = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--gap-ms"))
      gap = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--ramp-ms"))
      ramp = atof(argv[i + 1]);
    else
      die("schedule: unknown option %s", argv[i]);
  }
  heap_t h = {0};
  long *next = calloc((size_t)streams, sizeof(long));
  int64_t *start = calloc((size_t)streams, sizeof(int64_t));
  /* Pushed in reverse, so the heap cannot be relying on insertion order. */
  for (long s = streams - 1; s >= 0; s--) {
    start[s] = (int64_t)(ramp * 1000.0 * (double)s / (double)streams);
    heap_push(&h, (timer_t_){start[s], (uint32_t)s, 0});
  }
  printf("[");
  int first = 1;
  while (h.n) {
    timer_t_ t = heap_pop(&h);
    long s = (long)t.id;
    printf("%s[%ld,%ld,%.3f]", first ? "" : ",", s, next[s], (double)t.due / 1000.0);
    first = 0;
    next[s]++;
    if (next[s] < events) heap_push(&h, (timer_t_){start[s] + (int64_t)((double)next[s] * gap * 1000.0), (uint32_t)s, 0});
  }
  printf("]\n");
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) die("usage: ssebench upstream|load|parse|schedule [options]");
  if (!strcmp(argv[1], "upstream")) return run_upstream(argc, argv);
  if (!strcmp(argv[1], "load")) return run_load(argc, argv);
  if (!strcmp(argv[1], "parse")) return run_parse(argc, argv);
  if (!strcmp(argv[1], "schedule")) return run_schedule(argc, argv);
  die("unknown mode %s", argv[1]);
  return 2;
}
