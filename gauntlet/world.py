"""The Gauntlet's world: a simulated ops environment with three
deterministic traps. Pure Python, no Django: agents run it in their own
process.

The task is always the same three phases — build, configure, deploy — and
each phase hides a trap a newcomer walks into:

* **build**: the linker dies with exit 137 until the build cache is
  cleared (more memory does not help);
* **configure**: ``db.pool_size`` was silently deprecated — it is accepted
  and ignored; ``database.pool.max_size`` is the key now (the changelog
  says so), and the deploy's health check fails until it is set;
* **deploy**: the deploy API answers 429 unless ``X-Batch: true`` is sent.

Every action is a step, and every text the world shows an agent counts
towards its token estimate.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CHANGELOG = (
    "Release 4.2 notes: the configuration key db.pool_size is deprecated and ignored; "
    "use database.pool.max_size. Deploy API: batch uploads only, send X-Batch: true."
)


@dataclass
class Result:
    ok: bool
    text: str


@dataclass
class World:
    cache_dirty: bool = True
    built: bool = False
    config: dict[str, str] = field(default_factory=lambda: {"db.pool_size": "5"})
    deployed: bool = False
    steps: int = 0
    shown: list[str] = field(default_factory=list)  # everything the agent read

    def _answer(self, ok: bool, text: str) -> Result:
        self.steps += 1
        self.shown.append(text)
        return Result(ok, text)

    # --- build -----------------------------------------------------------
    def build(self) -> Result:
        if self.cache_dirty:
            return self._answer(
                False, "error: ld returned 137 (killed) while linking service-api; build failed"
            )
        self.built = True
        return self._answer(True, "build ok: service-api 4.2.1")

    def add_memory(self) -> Result:
        return self._answer(True, "runner memory raised to 8 GB")

    def clear_cache(self) -> Result:
        self.cache_dirty = False
        return self._answer(True, "removed .cache/build (2.1 GB)")

    # --- configure ---------------------------------------------------------
    def set_config(self, key: str, value: str) -> Result:
        self.config[key] = value
        return self._answer(True, f"config: {key} = {value}")  # silently, even if ignored

    def read_changelog(self) -> Result:
        return self._answer(True, CHANGELOG)

    def pool_size(self) -> int:
        return int(self.config.get("database.pool.max_size", "5"))

    # --- deploy -------------------------------------------------------------
    def deploy(self, *, batch: bool = False) -> Result:
        if not self.built:
            return self._answer(False, "deploy refused: no build artifact")
        if not batch:
            return self._answer(False, "HTTP 429 Too Many Requests from deploy-api (retry later)")
        if self.pool_size() < 20:
            return self._answer(
                False,
                f"deployed, but the health check failed: connection pool exhausted "
                f"(max {self.pool_size()})",
            )
        self.deployed = True
        return self._answer(True, "deployed: service-api 4.2.1 healthy")

    def wait(self) -> Result:
        return self._answer(True, "waited 30 s")
