"""Where each region's PostgreSQL is: ``TRIBUTARY_REGIONS`` read into
database aliases. Imported by the settings, so it touches nothing of
Django's but ``ImproperlyConfigured``.

* Unset: one region, ``default``, on the ``default`` database (which is
  also the directory): everything is as it was before regions.
* ``eu,us``: two regions, each on an embedded PostgreSQL of its own under
  ``<data dir>/regions/<name>``; the directory is the ``default`` database
  (``DATABASE_URL``, ``TRIBUTARY_DIRECTORY_URL`` or the embedded server).
* ``eu=postgres://…,us=postgres://…``: each region on its own server.

A region's database alias is ``region_<name>``; code never names it: it
runs ``in_region(name)`` (``regions.routing``) and uses the ``default``
alias, which follows the region (``regions.connections``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.core.exceptions import ImproperlyConfigured

DEFAULT_REGION = "default"
NAME = re.compile(r"^[a-z][a-z0-9-]{0,30}$")


@dataclass(frozen=True)
class RegionSpec:
    name: str
    url: str | None  # None: an embedded server under the data dir

    @property
    def alias(self) -> str:
        return region_alias(self.name)


def region_alias(name: str) -> str:
    return "default" if name == DEFAULT_REGION else f"region_{name}"


def parse_regions(raw: str | None) -> list[RegionSpec]:
    """``eu,us`` or ``eu=postgres://…,us=postgres://…`` (or a mix); empty: []."""
    if not raw or not raw.strip():
        return []
    specs: list[RegionSpec] = []
    for part in raw.split(","):
        part = part.strip()
        if not part:
            continue
        name, _, url = part.partition("=")
        name = name.strip()
        if not NAME.match(name) or name == DEFAULT_REGION:
            raise ImproperlyConfigured(
                f"TRIBUTARY_REGIONS: region name {name!r} must be lowercase letters, digits and "
                f"hyphens (≤ 31, starting with a letter) and not {DEFAULT_REGION!r}"
            )
        if name in {spec.name for spec in specs}:
            raise ImproperlyConfigured(f"TRIBUTARY_REGIONS names region {name!r} twice")
        specs.append(RegionSpec(name=name, url=url.strip() or None))
    return specs
