/*
 * http-pacer: an open-loop HTTP/1.1 load at an even rate, for the proxy benchmark (test/bench/scenarios/proxy.ts).
 *
 * Request n is due at start + n/rate. Due requests go out on the first idle keep-alive connection; when none is idle
 * they wait in order, and every latency counts from the request's due time, so a target that falls behind is charged
 * for the wait (no coordinated omission). One thread and epoll, in C, so the generator's share of the 2 cores is a
 * few percent and the same for every target.
 *
 *   http-pacer --port P --path /x --rate 1000 --seconds 5 [--host 127.0.0.1] [--connections 50]
 *              [--body-file F] [--content-type T] [--timeout-ms 30000]
 *
 * Prints one JSON object: answered requests, the seconds from start to the last answer, p50/p99 in ms, answers by
 * status, errors (refused or dropped connections, unreadable answers, answers not in by the end plus the timeout) and
 * the CPU the pacer itself used. Exit code 0 when it ran, 2 for bad arguments. Answers must carry Content-Length or
 * be chunked.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MAX_ANSWER (1 << 20)

struct conn {
  int fd;
  int busy;
  double due;
  char *buf;
  size_t len;
};

static const char *host = "127.0.0.1";
static int port = 0;
static const char *path = "/";
static double rate = 1000;
static double seconds = 5;
static int connections = 50;
static const char *body_file = NULL;
static const char *content_type = "application/json";
static int timeout_ms = 30000;

static char *request;
static size_t request_len;
static long errors;
static long statuses[600];

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int open_conn(int epfd, struct conn *c) {
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
  if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) return -1;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
  epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
  c->fd = fd;
  c->busy = 0;
  c->len = 0;
  return 0;
}

static void drop_conn(int epfd, struct conn *c) {
  if (c->fd >= 0) {
    epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
  }
  c->fd = -1;
  c->busy = 0;
  c->len = 0;
}

/* Whole answer in c->buf? Returns its length, 0 when more is needed, -1 when it cannot be read. */
static long answer_length(struct conn *c, int *status, int *closes) {
  char *end = memmem(c->buf, c->len, "\r\n\r\n", 4);
  if (end == NULL) return c->len > 65536 ? -1 : 0;
  size_t head = (size_t)(end - c->buf) + 4;
  if (c->len < 12 || strncmp(c->buf, "HTTP/1.", 7) != 0) return -1;
  *status = atoi(c->buf + 9);
  *closes = 0;
  long content_length = -1;
  int chunked = 0;
  for (char *line = strstr(c->buf, "\r\n") + 2; line < end; line = strstr(line, "\r\n") + 2) {
    if (strncasecmp(line, "content-length:", 15) == 0) content_length = atol(line + 15);
    else if (strncasecmp(line, "transfer-encoding:", 18) == 0 && strstr(line, "chunked") != NULL && strstr(line, "chunked") < strstr(line, "\r\n")) chunked = 1;
    else if (strncasecmp(line, "connection:", 11) == 0 && strcasestr(line, "close") != NULL && strcasestr(line, "close") < strstr(line, "\r\n")) *closes = 1;
  }
  if (content_length >= 0) return c->len >= head + (size_t)content_length ? (long)(head + (size_t)content_length) : 0;
  if (chunked) {
    char *last = memmem(c->buf + head, c->len - head, "0\r\n\r\n", 5);
    return last == NULL ? 0 : (long)(last - c->buf) + 5;
  }
  return -1;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--host") == 0) host = argv[i + 1];
    else if (strcmp(argv[i], "--port") == 0) port = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--path") == 0) path = argv[i + 1];
    else if (strcmp(argv[i], "--rate") == 0) rate = atof(argv[i + 1]);
    else if (strcmp(argv[i], "--seconds") == 0) seconds = atof(argv[i + 1]);
    else if (strcmp(argv[i], "--connections") == 0) connections = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--body-file") == 0) body_file = argv[i + 1];
    else if (strcmp(argv[i], "--content-type") == 0) content_type = argv[i + 1];
    else if (strcmp(argv[i], "--timeout-ms") == 0) timeout_ms = atoi(argv[i + 1]);
    else {
      fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (port <= 0 || rate <= 0 || seconds <= 0 || connections < 1 || timeout_ms < 1 || (argc - 1) % 2 != 0) {
    fprintf(stderr, "usage: http-pacer --port P --path /x --rate R --seconds S [--connections N] [--body-file F]\n");
    return 2;
  }
  char *body = NULL;
  long body_len = 0;
  if (body_file != NULL) {
    FILE *f = fopen(body_file, "rb");
    if (f == NULL) {
      perror(body_file);
      return 2;
    }
    fseek(f, 0, SEEK_END);
    body_len = ftell(f);
    fseek(f, 0, SEEK_SET);
    body = malloc((size_t)body_len + 1);
    if (fread(body, 1, (size_t)body_len, f) != (size_t)body_len) body_len = 0;
    fclose(f);
  }
  request = malloc((size_t)body_len + 1024 + strlen(path));
  request_len = (size_t)sprintf(request, "%s %s HTTP/1.1\r\nHost: %s:%d\r\n%s%s%sContent-Length: %ld\r\n\r\n", body_file == NULL ? "GET" : "POST", path, host, port,
                                body_file == NULL ? "" : "Content-Type: ", body_file == NULL ? "" : content_type, body_file == NULL ? "" : "\r\n", body_len);
  if (body_len > 0) memcpy(request + request_len, body, (size_t)body_len);
  request_len += (size_t)body_len;

  long total = (long)(rate * seconds + 0.5);
  double *latencies = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
  long answered = 0, sent = 0;
  int epfd = epoll_create1(0);
  struct conn *conns = calloc((size_t)connections, sizeof *conns);
  for (int i = 0; i < connections; i++) {
    conns[i].buf = malloc(MAX_ANSWER);
    conns[i].fd = -1;
    if (open_conn(epfd, &conns[i]) != 0) errors++;
  }
  int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
  struct epoll_event timer_event = {.events = EPOLLIN, .data.ptr = NULL};
  epoll_ctl(epfd, EPOLL_CTL_ADD, tfd, &timer_event);
  double start = now_s(), last_answer = start;
  double deadline = start + seconds + timeout_ms / 1000.0;
  struct epoll_event events[64];
  while (answered + errors < total) {
    double now = now_s();
    if (now > deadline) break;
    /* Send every due request there is an idle connection for, oldest first. */
    for (int i = 0; i < connections && sent < total && start + (double)sent / rate <= now; i++) {
      struct conn *c = &conns[i];
      if (c->busy) continue;
      if (c->fd < 0 && open_conn(epfd, c) != 0) continue;
      ssize_t w = send(c->fd, request, request_len, MSG_NOSIGNAL);
      if (w != (ssize_t)request_len) {
        /* An idle keep-alive connection takes a small request whole; anything else is a broken connection. */
        drop_conn(epfd, c);
        continue;
      }
      c->busy = 1;
      c->due = start + (double)sent / rate;
      sent++;
    }
    /* Sleep until the next due time (a timer, to the nanosecond, so the pacer neither spins nor sends late) or an
       answer, whichever comes first. */
    double next_due = sent < total ? start + (double)sent / rate : deadline;
    struct itimerspec when = {0};
    when.it_value.tv_sec = (time_t)next_due;
    when.it_value.tv_nsec = (long)((next_due - (double)(time_t)next_due) * 1e9);
    if (when.it_value.tv_sec == 0 && when.it_value.tv_nsec == 0) when.it_value.tv_nsec = 1;
    /* Behind with every connection busy, a due time already past would wake the loop at once, again and again:
       only an answer (or a dropped connection) can let a request out then, so the timer is disarmed. */
    int idle = 0;
    for (int i = 0; i < connections && !idle; i++) idle = !conns[i].busy;
    if (!idle && sent < total && next_due <= now_s()) when.it_value = (struct timespec){0, 0};
    timerfd_settime(tfd, TFD_TIMER_ABSTIME, &when, NULL);
    int n = epoll_wait(epfd, events, 64, (int)((deadline - now) * 1000.0) + 1);
    for (int k = 0; k < n; k++) {
      struct conn *c = events[k].data.ptr;
      if (c == NULL) {
        unsigned long long expirations;
        if (read(tfd, &expirations, sizeof expirations) < 0) { /* nothing to do: the loop re-arms it */ }
        continue;
      }
      ssize_t r = read(c->fd, c->buf + c->len, MAX_ANSWER - c->len);
      if (r <= 0) {
        if (r < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (c->busy) errors++;
        drop_conn(epfd, c);
        continue;
      }
      c->len += (size_t)r;
      int status = 0, closes = 0;
      long whole = answer_length(c, &status, &closes);
      if (whole < 0 || !c->busy) {
        if (c->busy) errors++;
        drop_conn(epfd, c);
        continue;
      }
      if (whole == 0) continue;
      double at = now_s();
      latencies[answered++] = at - c->due;
      last_answer = at;
      if (status > 0 && status < 600) statuses[status]++;
      memmove(c->buf, c->buf + whole, c->len - (size_t)whole);
      c->len -= (size_t)whole;
      c->busy = 0;
      if (closes) drop_conn(epfd, c);
    }
  }
  long unanswered = total - answered - errors;
  if (unanswered > 0) errors += unanswered;
  qsort(latencies, (size_t)answered, sizeof(double), compare);
  double p50 = answered > 0 ? latencies[(long)(0.50 * answered + 0.999999) - 1] * 1000 : -1;
  double p99 = answered > 0 ? latencies[(long)(0.99 * answered + 0.999999) - 1] * 1000 : -1;
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  double cpu = (double)usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + (double)usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
  printf("{\"requests\":%ld,\"seconds\":%.3f,\"p50Ms\":%.3f,\"p99Ms\":%.3f,\"errors\":%ld,\"cpuSeconds\":%.3f,\"statuses\":{", answered, last_answer - start, p50, p99, errors, cpu);
  int first = 1;
  for (int s = 0; s < 600; s++) {
    if (statuses[s] == 0) continue;
    printf("%s\"%d\":%ld", first ? "" : ",", s, statuses[s]);
    first = 0;
  }
  printf("}}\n");
  return 0;
}
