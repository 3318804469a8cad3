"""Word lists the offline judge reasons with.

Everything here is written as plain English words; :mod:`memory.judge.text`
stems the keys at import time, so a list entry covers its inflections
("require" also matches "requires", "required", "requiring").

The lists are deliberately ops-flavoured: they describe the vocabulary of
lessons agents write about builds, deploys, services and their settings.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    """A word set written as whitespace-separated text (easier to read and edit)."""
    return frozenset(text.split())


# Removed before any comparison: they carry no subject and no fact.
STOPWORDS: frozenset[str] = _words(
    """
    a an the this that these those it its itself they them their there here our ours
    your yours you we us i me my of to in on at for from by with into onto as and or but
    so if when whenever while once unless otherwise without which who whom whose what
    where how all any each every some only just also still always again very really via
    about than own other same such both either neither too even however therefore thus
    since because due please sure instead currently now yet ever already will would
    shall should could might be is are was were been being am do does did done has have
    had during until within between across through against among upon e.g i.e etc
    whether per first firstly initially
    """
)

# Words that count as a verb position for subject detection although they are
# stopwords (copulas, auxiliaries, modals).
AUXILIARIES: frozenset[str] = _words(
    """
    is are was were be been am has have had do does did will would shall should could
    might must can may need needs
    """
)

NEGATORS: frozenset[str] = frozenset(
    {"not", "no", "never", "nor", "none", "nolonger", "avoid", "without"}
)

# Words a negator skips over to find the word it negates ("is not required",
# "does not ever run", "must not be cached").
NEGATION_SKIP: frozenset[str] = _words(
    """
    be is are was were been being am do does did have has had to a an the yet ever
    always actually currently any get gets got longer really still also
    """
)

# Bound words: "at least 4 GB", "larger than 1 GiB". Dropped from the content
# (they vary freely between paraphrases); the number itself is compared.
BOUND_WORDS: frozenset[str] = _words(
    """
    above over below under beyond exceed exceeds exceeding exceeded upto larger bigger
    greater smaller higher lower fewer newer later older earlier least most more less
    """
)

# Order markers: the first element says whether the phrase *before* the marker
# happens first ("X before Y") or second ("X after Y").
ORDER_MARKERS: dict[str, str] = {
    "before": "first",
    "priorto": "first",
    "then": "first",
    "followedby": "first",
    "after": "second",
}

# Multi-word phrases merged into one token before anything else. Each entry is
# (words, replacement, is_verb). Words are matched on stems.
PHRASES: list[tuple[tuple[str, ...], str, bool]] = [
    (("no", "longer"), "nolonger", False),
    (("not", "anymore"), "not", False),
    (("instead", "of"), "not", False),
    (("rather", "than"), "not", False),
    (("time", "out"), "timeout", True),
    (("give", "up"), "timeout", True),
    (("kick", "off"), "start", True),
    (("scale", "out"), "scaleout", True),
    (("scale", "up"), "scaleout", True),
    (("add", "a", "replica"), "scaleout", True),
    (("add", "replica"), "scaleout", True),
    (("run", "out", "of", "memory"), "oom", True),
    (("out", "of", "memory"), "oom", False),
    (("turn", "off"), "disable", True),
    (("switch", "off"), "disable", True),
    (("turn", "on"), "enable", True),
    (("switch", "on"), "enable", True),
    (("rate", "limit"), "ratelimit", False),
    (("rate", "limited"), "ratelimit", False),
    (("health", "check"), "healthcheck", False),
    (("health", "checks"), "healthcheck", False),
    (("prior", "to"), "priorto", False),
    (("followed", "by"), "followedby", False),
    (("at", "least"), "least", False),
    (("at", "most"), "most", False),
    (("up", "to"), "upto", False),
    (("or", "more"), "more", False),
    (("or", "newer"), "newer", False),
    (("or", "later"), "later", False),
    (("or", "higher"), "higher", False),
    (("or", "above"), "above", False),
    (("and", "above"), "above", False),
    (("and", "up"), "above", False),
    (("or", "less"), "less", False),
    (("or", "older"), "older", False),
    (("or", "lower"), "lower", False),
    (("or", "below"), "below", False),
    (("more", "than"), "more", False),
    (("less", "than"), "less", False),
    (("fewer", "than"), "fewer", False),
    (("larger", "than"), "larger", False),
    (("bigger", "than"), "bigger", False),
    (("greater", "than"), "greater", False),
    (("smaller", "than"), "smaller", False),
    (("higher", "than"), "higher", False),
    (("lower", "than"), "lower", False),
    (("in", "excess", "of"), "exceeds", False),
    (("per", "cent"), "percent", False),
    (("business", "hours"), "businesshours", False),
    (("office", "hours"), "businesshours", False),
    (("working", "hours"), "businesshours", False),
]

# Antonyms and polarity words: word -> (concept, sign). Two statements that
# use the same concept with opposite signs disagree ("enabled" vs
# "disabled", "optional" vs "required").
POLARITY: dict[str, tuple[str, int]] = {
    "enable": ("enable", 1),
    "enabled": ("enable", 1),
    "disable": ("enable", -1),
    "disabled": ("enable", -1),
    "allow": ("allow", 1),
    "permit": ("allow", 1),
    "can": ("allow", 1),
    "may": ("allow", 1),
    "forbid": ("allow", -1),
    "forbidden": ("allow", -1),
    "prohibit": ("allow", -1),
    "disallow": ("allow", -1),
    "ban": ("allow", -1),
    "deny": ("allow", -1),
    "block": ("allow", -1),
    "require": ("require", 1),
    "need": ("require", 1),
    "expect": ("require", 1),
    "must": ("require", 1),
    "mandatory": ("require", 1),
    "necessary": ("require", 1),
    "compulsory": ("require", 1),
    "optional": ("require", -1),
    "unnecessary": ("require", -1),
    "support": ("support", 1),
    "compatible": ("support", 1),
    "unsupported": ("support", -1),
    "deprecate": ("support", -1),
    "deprecated": ("support", -1),
    "incompatible": ("support", -1),
    "obsolete": ("support", -1),
    "succeed": ("succeed", 1),
    "success": ("succeed", 1),
    "successful": ("succeed", 1),
    "pass": ("succeed", 1),
    "work": ("succeed", 1),
    "fail": ("succeed", -1),
    "failure": ("succeed", -1),
    "break": ("succeed", -1),
    "broken": ("succeed", -1),
    "crash": ("succeed", -1),
    "true": ("true", 1),
    "false": ("true", -1),
    "accept": ("accept", 1),
    "reject": ("accept", -1),
    "refuse": ("accept", -1),
    "shared": ("share", 1),
    "share": ("share", 1),
    "isolated": ("share", -1),
    "dedicated": ("share", -1),
    "separate": ("share", -1),
    "public": ("public", 1),
    "private": ("public", -1),
    "safe": ("safe", 1),
    "unsafe": ("safe", -1),
    "dangerous": ("safe", -1),
    "synchronous": ("sync", 1),
    "sync": ("sync", 1),
    "asynchronous": ("sync", -1),
    "async": ("sync", -1),
    "keep": ("keep", 1),
    "delete": ("keep", -1),
    "purge": ("keep", -1),
    "discard": ("keep", -1),
    "include": ("include", 1),
    "exclude": ("include", -1),
}

# Plain synonyms: word -> canonical word (both are stemmed on import).
SYNONYMS: dict[str, str] = {
    "database": "db",
    "repository": "repo",
    "configuration": "config",
    "configure": "config",
    "settings": "config",
    "setting": "config",
    "conf": "config",
    "endpoint": "api",
    "server": "host",
    "machine": "host",
    "box": "host",
    "vm": "host",
    "utilisation": "usage",
    "utilization": "usage",
    "load": "usage",
    "ram": "memory",
    "mem": "memory",
    "ttl": "expire",
    "expiry": "expire",
    "expiration": "expire",
    "valid": "expire",
    "validity": "expire",
    "lifetime": "expire",
    "answer": "return",
    "respond": "return",
    "reply": "return",
    "bind": "listen",
    "serve": "listen",
    "reachable": "listen",
    "retain": "keep",
    "retention": "keep",
    "persist": "keep",
    "store": "keep",
    "remove": "delete",
    "erase": "delete",
    "begin": "start",
    "launch": "start",
    "fire": "run",
    "execute": "run",
    "schedule": "run",
    "trigger": "run",
    "staff": "employee",
    "personnel": "employee",
    "previous": "old",
    "former": "old",
    "prior": "old",
    "doc": "docs",
    "documentation": "docs",
    "cert": "certificate",
    "msg": "message",
    "req": "request",
    "call": "request",
    "frozen": "freeze",
    "freeze": "freeze",
    "frontend": "frontend",
    "front-end": "frontend",
    "backend": "backend",
    "back-end": "backend",
    "autoscaler": "autoscale",
    "autoscaling": "autoscale",
    "creds": "credential",
    "credentials": "credential",
    "env": "environment",
    "dir": "directory",
    "folder": "directory",
    "cc": "copy",
    # everyday short forms, one word each ("app logs" are application logs)
    "application": "app",
    "refrigerator": "fridge",
    "bicycle": "bike",
    "temperature": "temp",
    "information": "info",
    "administrator": "admin",
    "telephone": "phone",
    "photograph": "photo",
    "laboratory": "lab",
    "veterinarian": "vet",
    "veterinary": "vet",
    "statistics": "stats",
    "maximum": "max",
    "minimum": "min",
}

# Irregular forms the suffix stemmer cannot reach.
IRREGULAR: dict[str, str] = {
    "ran": "run",
    "running": "run",
    "kept": "keep",
    "sent": "send",
    "built": "build",
    "taken": "take",
    "took": "take",
    "given": "give",
    "gave": "give",
    "began": "begin",
    "begun": "begin",
    "broke": "break",
    "went": "go",
    "gone": "go",
    "held": "hold",
    "got": "get",
    "gotten": "get",
    "written": "write",
    "wrote": "write",
    "using": "use",
    "used": "use",
    "uses": "use",
    "froze": "freeze",
    "data": "data",
    "does": "do",
    "dies": "die",
    "lives": "live",
    "lived": "live",
    "living": "live",
}

# Words that are present in a lesson but say little about its subject; they
# weigh less when two lessons' vocabularies are compared.
LIGHT_WORDS: frozenset[str] = _words(
    """
    use set run get give make take go keep stay remain add send need put let come api
    service host system app application thing value option parameter param file default
    header http https request mode level way time process job task item note lesson
    issue having via code work check try call also number count issue limit new
    """
)

# Subordinators that open a leading context clause ("When deploying, ...").
SUBORDINATORS: frozenset[str] = _words(
    """
    when whenever if while during for on in after before once to with without unless
    """
)

# Verbs (base forms) that reliably mark the predicate when they follow a subject.
# Words that are just as often nouns in ops lessons ("deploy", "build", "cache",
# "lock", "backup", "log") are left out on purpose.
VERBS: frozenset[str] = _words(
    """
    run listen require need answer respond reply return reject accept allow forbid
    expire give keep take fail succeed crash support use expect read write send receive
    get go stay remain become serve expose bind point fire trigger issue lag scale add
    live reach exceed hit contain wait apply ignore skip mount publish emit print report
    restart rotate throttle last cost hang leak talk connect retry break pass start stop
    begin kick time enable disable prevent cause produce generate create delete remove
    drop fetch pull push clone install upgrade downgrade pin require mean means refuse
    block crash die sit hold retain happen occur finish complete ship carry evict cap
    skip land arrive load wrap fetch hit strip escalate assign notify submit approve
    """
)

# Base forms that, first in a sentence, make it an imperative ("Run
# migrations before deploying").
IMPERATIVE_VERBS: frozenset[str] = _words(
    """
    run set use deploy build pass send give add remove delete drop restart start stop
    enable disable install upgrade pin avoid keep make put call check wait retry apply
    always never do don't configure export import push pull clone rotate create bump
    raise lower increase decrease limit cache prefer include exclude ensure open close
    """
)

# Technology and product names. Two lessons naming different ones (in the same
# role) are about different subjects.
TECH_NAMES: frozenset[str] = _words(
    """
    python node nodejs deno bun ruby java kotlin golang rust php perl dotnet postgres
    postgresql mysql mariadb sqlite mongodb mongo dynamodb cassandra redis memcached
    valkey kafka rabbitmq nats sqs sns pubsub celery sidekiq nginx apache haproxy envoy
    traefik caddy uvicorn gunicorn django flask fastapi rails react vue angular svelte
    webpack vite esbuild pnpm npm yarn pip poetry docker podman kubernetes k8s helm
    terraform ansible pulumi vault consul grafana prometheus loki tempo jaeger datadog
    sentry elasticsearch opensearch kibana logstash clickhouse snowflake bigquery s3 gcs
    minio cloudflare linux windows macos ubuntu debian alpine centos rhel fedora github
    gitlab bitbucket jenkins circleci buildkite travis argocd spinnaker aws gcp azure
    heroku vercel netlify fly.io
    """
)

# Names that are also ordinary words; they count as technology only when
# capitalised mid-sentence or followed by a version number.
AMBIGUOUS_TECH: frozenset[str] = frozenset({"node", "go", "rust", "bun", "deno", "vault"})

TECH_ALIASES: dict[str, str] = {
    "postgresql": "postgres",
    "pg": "postgres",
    "nodejs": "node",
    "golang": "go",
    "k8s": "kubernetes",
    "mongo": "mongodb",
}

# Database engines also count as a "db" so that "the staging Postgres" and
# "the staging database" can be the same thing.
DB_ENGINES: frozenset[str] = frozenset(
    {"postgres", "mysql", "mariadb", "sqlite", "mongodb", "dynamodb", "cassandra"}
)

# Deployment environments: always part of a lesson's subject, wherever they
# appear in the sentence.
ENVIRONMENTS: dict[str, str] = {
    "production": "production",
    "prod": "production",
    "prd": "production",
    "preprod": "preproduction",
    "nonprod": "nonproduction",
    "staging": "staging",
    "stage": "staging",
    "stg": "staging",
    "development": "development",
    "dev": "development",
    "qa": "qa",
    "uat": "uat",
    "sandbox": "sandbox",
    "preview": "preview",
    "local": "local",
    "demo": "demo",
}

# Upper-case words that are generic vocabulary, not names.
GENERIC_ACRONYMS: frozenset[str] = _words(
    """
    API APIS CI CD DB DBS HTTP HTTPS URL URI UTC GMT CPU GPU RAM TTL UI UX CLI SDK TLS
    SSL DNS JSON YAML YML TOML SQL SSH VM VMS OK ID IDS IP TCP UDP OS PR PRS MR TCP CSV
    XML HTML CSS JS TS QA UAT OOM MB GB KB TB MIB GIB KIB TIB MS
    """
)

FILE_EXTENSIONS: frozenset[str] = _words(
    """
    toml yaml yml json py js ts tsx jsx env conf cfg ini txt md sh lock sql log xml tf
    tfvars rb go rs java kt php html css csv pem crt key service timer
    """
)

# --- units and values --------------------------------------------------------

# Duration units in seconds. "m" alone only counts in compact forms ("5m").
DURATION_UNITS: dict[str, float] = {
    # a working day, a fifth of a week (memory.judge.text writes "businessdays")
    "businessdays": 86400.0 * 7 / 5,
    "ms": 0.001,
    "msec": 0.001,
    "msecs": 0.001,
    "millisecond": 0.001,
    "milliseconds": 0.001,
    "s": 1.0,
    "sec": 1.0,
    "secs": 1.0,
    "second": 1.0,
    "seconds": 1.0,
    "m": 60.0,
    "min": 60.0,
    "mins": 60.0,
    "minute": 60.0,
    "minutes": 60.0,
    "h": 3600.0,
    "hr": 3600.0,
    "hrs": 3600.0,
    "hour": 3600.0,
    "hours": 3600.0,
    "d": 86400.0,
    "day": 86400.0,
    "days": 86400.0,
    "night": 86400.0,
    "nights": 86400.0,
    "wk": 604800.0,
    "wks": 604800.0,
    "week": 604800.0,
    "weeks": 604800.0,
    "month": 2592000.0,
    "months": 2592000.0,
    "year": 31536000.0,
    "years": 31536000.0,
}
# The same units in the languages lessons are most often written in besides
# English (plurals, and singulars no English word shares: not "tag", "ora").
_OTHER_DURATION_WORDS = {
    1.0: "secondi segundos secondes sekunden seconden sekund sekundy",
    60.0: "minuti minutos minuten minut minuty minuter",
    3600.0: "ore horas heures stunden stunde uur godzin godziny godzina timmar timme",
    86400.0: "giorni giorno días dias día dia jours jour tage tagen dagen dag dni dzień doby",
    604800.0: "settimane settimana semanas semana semaines semaine wochen woche weken"
    " tygodni tygodnie tydzień",
    2592000.0: "mesi mese meses mes mois monate monaten monat maanden maand"
    " miesięcy miesiące miesiąc",
    31536000.0: "anni anno años anos ans jahre jahren jahr jaar jaren lat",
}
DURATION_UNITS.update(
    {word: seconds for seconds, words in _OTHER_DURATION_WORDS.items() for word in words.split()}
)

# Size units: (bytes if the prefix is read as SI, bytes if read as binary).
# "4 GB" and "4096 MB" are equal when both are read as binary, which is how
# many people mean them; "1 GiB" and "1024 MiB" are equal either way.
SIZE_UNITS: dict[str, tuple[float, float]] = {
    "b": (1.0, 1.0),
    "byte": (1.0, 1.0),
    "bytes": (1.0, 1.0),
    "kb": (1e3, 1024.0),
    "kilobyte": (1e3, 1024.0),
    "kilobytes": (1e3, 1024.0),
    "mb": (1e6, 1024.0**2),
    "megabyte": (1e6, 1024.0**2),
    "megabytes": (1e6, 1024.0**2),
    "gb": (1e9, 1024.0**3),
    "gig": (1e9, 1024.0**3),
    "gigs": (1e9, 1024.0**3),
    "gigabyte": (1e9, 1024.0**3),
    "gigabytes": (1e9, 1024.0**3),
    "tb": (1e12, 1024.0**4),
    "terabyte": (1e12, 1024.0**4),
    "terabytes": (1e12, 1024.0**4),
    "kib": (1024.0, 1024.0),
    "mib": (1024.0**2, 1024.0**2),
    "gib": (1024.0**3, 1024.0**3),
    "tib": (1024.0**4, 1024.0**4),
}

PERCENT_WORDS: frozenset[str] = frozenset({"%", "percent", "pct"})

# Physical units read through pint (memory.judge.facts): an allow-list, because
# pint also knows "in", "at", "are" and "a" as units.
PINT_UNITS: dict[str, str] = {
    "mg": "mg", "g": "g", "kg": "kg", "t": "t", "tonne": "t", "tonnes": "t", "ton": "t",
    "tons": "t", "lb": "lb", "lbs": "lb", "mm": "mm", "cm": "cm", "km": "km", "mile": "mile",
    "miles": "mile", "ft": "ft", "feet": "ft", "foot": "ft", "metre": "m", "metres": "m",
    "meter": "m", "meters": "m", "ml": "ml", "l": "l", "litre": "l", "litres": "l",
    "liter": "l", "liters": "l", "degc": "degC", "degf": "degF", "w": "W", "kw": "kW",
    # a difference of temperature ("7 °F above the boiling point")
    "ddegc": "delta_degC", "ddegf": "delta_degF",
    "mw": "MW", "kwh": "kWh", "mwh": "MWh", "v": "V", "kv": "kV", "hz": "Hz", "khz": "kHz",
    "mhz": "MHz", "ghz": "GHz", "kmh": "km/h", "mph": "mph", "newtonmetre": "N*m",
    "footpound": "ft*lbf", "inch": "inch", "ppm": "ppm", "lux": "lx", "lx": "lx",
    # the metric prefixes spelled out, both spellings
    **{f"{prefix}{base}{plural}": f"{short}{unit}"
       for prefix, short in (("milli", "m"), ("centi", "c"), ("kilo", "k"))
       for base, unit in (
           ("metre", "m"), ("meter", "m"), ("gram", "g"), ("litre", "l"), ("liter", "l")
       )
       for plural in ("", "s")},
    "gram": "g", "grams": "g",
    # pressure: "2 bar" is "29 psi"
    "bar": "bar", "mbar": "mbar", "millibar": "mbar", "millibars": "mbar", "psi": "psi",
    "kpa": "kPa", "mpa": "MPa", "hpa": "hPa", "pascal": "Pa", "pascals": "Pa",
}  # fmt: skip
# Words that make a bare "m" a metre, not a minute ("1.8 m in height").
# Measures named before their reading ("pH 6.5", "Brix 22.5"): a dotted
# number after them is a reading, never the name's version.
MEASURED_BY_NAME: frozenset[str] = frozenset(
    {"ph", "brix", "rh", "ec", "tds", "orp", "inr", "bmi", "gravity", "sg", "aw", "abv"}
)

LENGTH_CUES: frozenset[str] = frozenset(
    {"height", "high", "tall", "wide", "width", "length", "distance", "depth", "deep",
     "clearance", "radius", "diameter", "span", "elevation", "altitude", "headroom", "cm",
     "higher", "taller", "deeper", "above", "or higher", "and above", "or above",
     "mm", "km", "ft", "feet", "metres", "meters", "inches", "apart", "away"}
)  # fmt: skip

# Currency codes the text pass writes after an amount (memory.judge.text).
CURRENCY_CODES: frozenset[str] = frozenset(
    {"eur", "usd", "gbp", "jpy", "inr", "chf", "cad", "aud", "sek"}
)

# Compact rate units, in events per second.
RATE_UNITS: dict[str, float] = {
    "rps": 1.0,
    "qps": 1.0,
    "rpm": 1.0 / 60.0,
    "rph": 1.0 / 3600.0,
}

# Multipliers written after a number: "10k requests".
SCALE_WORDS: dict[str, float] = {
    "k": 1e3,
    "thousand": 1e3,
    "million": 1e6,
    "mil": 1e6,
}

# Offsets from UTC in minutes. Fixed abbreviations only: "CET" is +1 even in
# summer, because a lesson that says CET means CET.
TIMEZONES: dict[str, int] = {
    "utc": 0,
    "gmt": 0,
    "z": 0,
    "wet": 0,
    "bst": 60,
    "cet": 60,
    "cest": 120,
    "eet": 120,
    "eest": 180,
    "msk": 180,
    "ist": 330,
    "sgt": 480,
    "jst": 540,
    "aest": 600,
    "est": -300,
    "edt": -240,
    "cst": -360,
    "cdt": -300,
    "mst": -420,
    "mdt": -360,
    "pst": -480,
    "pdt": -420,
}

WEEKDAYS: dict[str, tuple[int, ...]] = {
    "monday": (0,),
    "mondays": (0,),
    "tuesday": (1,),
    "tuesdays": (1,),
    "wednesday": (2,),
    "wednesdays": (2,),
    "thursday": (3,),
    "thursdays": (3,),
    "friday": (4,),
    "fridays": (4,),
    "saturday": (5,),
    "saturdays": (5,),
    "sunday": (6,),
    "sundays": (6,),
    "weekday": (0, 1, 2, 3, 4),
    "weekdays": (0, 1, 2, 3, 4),
    "weekend": (5, 6),
    "weekends": (5, 6),
}

# Short day names: "Mon", "Thu", "Fri" are days wherever they stand; "Sat",
# "Sun", "Wed", "Tue" only beside another day ("the sun", "sat down").
WEEKDAY_SHORT: dict[str, tuple[int, ...]] = {
    "mon": (0,), "tue": (1,), "tues": (1,), "wed": (2,), "thu": (3,), "thur": (3,),
    "thurs": (3,), "fri": (4,), "sat": (5,), "sun": (6,),
}  # fmt: skip
WEEKDAY_SHORT_PLAIN = frozenset({"mon", "thu", "thur", "thurs", "fri"})

# Frequency words, as an interval in seconds.
FREQUENCY_WORDS: dict[str, float] = {
    "hourly": 3600.0,
    "daily": 86400.0,
    "nightly": 86400.0,
    "weekly": 604800.0,
    "fortnightly": 1209600.0,
    "biweekly": 1209600.0,
    "monthly": 2592000.0,
    "quarterly": 7776000.0,
    "yearly": 31536000.0,
    "annually": 31536000.0,
}

NUMBER_WORDS: dict[str, float] = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "hundred": 100,
    "thousand": 1000,
    "dozen": 12,
}

# Words after a number that make it a rate ("100 requests per minute").
RATE_JOINERS: frozenset[str] = frozenset({"per", "/", "a", "an", "each", "every"})

# Context words that make a bare 3-digit number an HTTP status code.
STATUS_CONTEXT: frozenset[str] = frozenset(
    {"return", "http", "status", "code", "with", "error", "get", "receive", "throw"}
)

# Words that make "on 6379" a port.
PORT_CONTEXT: frozenset[str] = frozenset(
    {"listen", "port", "bind", "expose", "run", "available", "accessible", "open", "connect"}
)

# Nouns for settings that take exactly one value. Two lessons about the same
# subject naming different ones ("the allkeys-lru policy" vs "the
# volatile-lru policy") disagree; other objects ("strips header A" vs "strips
# header B") can both be true.
SINGLE_VALUED_HEADS: frozenset[str] = _words(
    """
    policy mode strategy region zone format level driver engine algorithm scheme type
    tier plan channel protocol codec encoding charset locale timezone provider class
    runtime image flavor flavour size shape backend profile bucket location path
    directory dir branch registry
    """
)

# Nouns that only count something; "the replica count is 3" counts replicas.
COUNT_NOUNS: frozenset[str] = frozenset({"count", "number", "total", "amount", "quantity"})

# Kinds that exclude each other: two lessons, or two situations, told apart
# by one word of a group ("*internal* ALB" / "*external* ALB", "US *hourly*
# payroll" / "US *salaried* payroll") are about two things, however much
# else they share.
CONTRASTS: tuple[frozenset[str], ...] = tuple(
    frozenset(group.split())
    for group in (
        "internal external",
        "inbound outbound",
        "ingress egress",
        "upstream downstream",
        "primary secondary replica standby",
        "hourly salaried salary",
        "domestic international",
        "residential commercial industrial",
        "inpatient outpatient",
        "adult adults pediatric paediatric neonatal teen teens teenage teenager teenagers",
        "canine feline equine",
        "retail wholesale",
        "north south east west",
        "upper lower",
        "minimum maximum",
        "critical noncritical non-critical",
    )
)
