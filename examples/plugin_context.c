/* A plugin inside someone else's process: its own context (policy, warning
 * handler, errors), and its ops' chunks run on the host's thread pool (here a
 * small pthread pool) instead of OpenMP threads. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <bcast/bcast.h>

/* ---- the host's pool: a fixed set of threads that run "jobs" ---- */

enum { POOL_THREADS = 3 };

struct pool {
  pthread_t threads[POOL_THREADS - 1]; /* the calling thread is the last one */
  pthread_mutex_t mu;
  pthread_cond_t wake, done;
  /* the job in progress */
  bc_chunk_fn fn;
  void* task;
  size_t nchunks, next, finished;
  unsigned long generation;
  int quit;
  unsigned long jobs;
};

/* Takes chunks until none are left; returns when the job has none left to hand out. */
static void work(struct pool* p) {
  for (;;) {
    pthread_mutex_lock(&p->mu);
    if (p->next >= p->nchunks) {
      pthread_mutex_unlock(&p->mu);
      return;
    }
    const size_t i = p->next++;
    pthread_mutex_unlock(&p->mu);
    p->fn(p->task, i);
    pthread_mutex_lock(&p->mu);
    if (++p->finished == p->nchunks) pthread_cond_broadcast(&p->done);
    pthread_mutex_unlock(&p->mu);
  }
}

static void* worker(void* arg) {
  struct pool* p = arg;
  unsigned long seen = 0;
  for (;;) {
    pthread_mutex_lock(&p->mu);
    while (!p->quit && p->generation == seen) pthread_cond_wait(&p->wake, &p->mu);
    if (p->quit) {
      pthread_mutex_unlock(&p->mu);
      return NULL;
    }
    seen = p->generation;
    pthread_mutex_unlock(&p->mu);
    work(p);
  }
}

/* bc_scheduler's two functions. */
static int pool_num_threads(void* user) {
  (void)user;
  return POOL_THREADS;
}
static void pool_run(void* user, size_t nchunks, bc_chunk_fn fn, void* task) {
  struct pool* p = user;
  pthread_mutex_lock(&p->mu);
  p->fn = fn;
  p->task = task;
  p->nchunks = nchunks;
  p->next = p->finished = 0;
  p->generation++;
  p->jobs++;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  work(p); /* the caller helps */
  pthread_mutex_lock(&p->mu);
  while (p->finished < p->nchunks) pthread_cond_wait(&p->done, &p->mu);
  pthread_mutex_unlock(&p->mu);
}

/* ---- the plugin ---- */

static void on_warning(const char* message, void* user) {
  int* count = user;
  ++*count;
  printf("plugin warning: %s\n", message);
}

int main(void) {
  struct pool pool;
  memset(&pool, 0, sizeof pool);
  pthread_mutex_init(&pool.mu, NULL);
  pthread_cond_init(&pool.wake, NULL);
  pthread_cond_init(&pool.done, NULL);
  for (int i = 0; i < POOL_THREADS - 1; ++i) pthread_create(&pool.threads[i], NULL, worker, &pool);

  /* Another component of the process refuses implicit broadcasts... */
  bc_set_broadcast_policy(BC_POLICY_ERROR);

  /* [the plugin] */
  /* ...the plugin only wants to hear about them, on its own handler. */
  bc_ctx* ctx = NULL;
  int warnings = 0;
  const bc_scheduler sched = {pool_num_threads, pool_run, &pool};
  if (bc_ctx_create(&ctx) != BC_OK || bc_ctx_set_option(ctx, BC_OPT_POLICY, BC_POLICY_WARN) ||
      bc_ctx_set_warning_handler(ctx, on_warning, &warnings) ||
      bc_ctx_set_scheduler(ctx, &sched)) {
    fprintf(stderr, "context: %s\n", bc_last_error());
    return 1;
  }

  const int64_t big[] = {1024, 1024}, row[] = {1024};
  bc_tensor *x = NULL, *y = NULL, *z = NULL;
  int rc = 0;
  if (bc_ctx_tensor_zeros(ctx, BC_FLOAT32, big, 2, &x) ||
      bc_ctx_tensor_zeros(ctx, BC_FLOAT32, row, 1, &y) ||
      bc_ctx_binary(ctx, BC_ADD, x, y, &z)) {
    fprintf(stderr, "error: %s\n", bc_ctx_last_error(ctx));
    rc = 1;
  } else {
    printf("plugin: ok, %d warning(s), %lu job(s) on the host's pool\n", warnings, pool.jobs);
  }
  /* [the plugin] */
  /* The same op through the default context is refused by the other
   * component's policy; its error is this thread's, not the plugin's. */
  bc_tensor* w = NULL;
  if (bc_binary(BC_ADD, x, y, &w) == BC_ERR_POLICY) printf("default context: %s\n", bc_last_error());
  else rc = 1;
  if (warnings != 1 || pool.jobs != 1) rc = 1;

  bc_tensor_free(z);
  bc_tensor_free(y);
  bc_tensor_free(x);
  bc_ctx_free(ctx);
  pthread_mutex_lock(&pool.mu);
  pool.quit = 1;
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.mu);
  for (int i = 0; i < POOL_THREADS - 1; ++i) pthread_join(pool.threads[i], NULL);
  return rc;
}
