"""A corpus of real public APIs' list paging, each modelled exactly as its documentation gives it.

Issue 23 asks the client to follow the list conventions of real APIs as they are, not only the
named presets. This package is the instrument: one executable model per real list operation
(security and device-management vendors first, then clouds and SaaS), served over a loopback
socket by `tests.paging.real_api_server` and listed by today's default client in
`tests/paging/test_real_apis.py` and `scripts/real-apis`.

A model (`RealApi`) holds the API's name and list operation, its category, the documentation it
was built from (`source`), a one-line `shape` (where the items are, the continuation and its
request parameter, totals, end evidence), its base path, its page sizing (`sizing`:
`default_page_size`, `max_page_size`, `size_param`), whether it rejects unknown parameters,
parameters it requires that are not paging (`required_params`, passed as the list call's
`extra_params`), every detail taken beyond the docs (`assumptions`), and what the rebuilt
detector must do with it (`expected`: "lists" or "refuses", with `expected_refusal_reason`).
Its `respond` is a pure function of the request (URL with query, headers) and the whole id-ordered
list of records, answering one page: the items where the API keeps them, its continuation (token,
URL, relative path, header, keyset id, page or offset) and what its last page carries (null, an
absent key, "", a false flag, a Link with results="false", ...). Tokens are opaque and signed
(`Tokens`), so a forged or foreign token gets the API's error status. Its `reference` is the
documented way to list it, as data (`_reference`: where the items are, and `UrlAt`, `TokenAt`,
`LinkNext`, `HeaderToken`, `NextRange`, `Offset`, `PageNumber` or `Keyset` for the next request):
its repr reads as the convention a detector should compose, and `test_real_api_models` walks it
to show every "lists" expectation is reachable by a client that knows the convention.

Modules, in catalogue order: `security_vendors` (EDR/XDR, scanners), `device_management`
(MDM, RMM, directories), `asset_inventory` (asset discovery, CMDB), `vuln_data` (vulnerability
databases, SCA, threat intelligence), `clouds`, `saas_dev_tools`, `saas_enterprise`,
`saas_business`, `saas_commerce_media`, `saas_platforms`; the kit in `_kit`, distinct shapes in
`_shapes`.

The harness serves each model at the client's collection path, `{base_path}/v1/endpoints`
(`/v1/endpoints.json` for an API whose list paths end in `.json`: its `extension`); the client's
base URL is the origin plus the base path. Where an API keeps its items under the
resource's own name, the model uses `RESOURCE` ("endpoints", or "Endpoints" for PascalCase APIs).

Adding an API: read its documentation (and an SDK's paging loop where the docs are silent),
write `respond` in the category's module with the kit's windows (`offset_window`, `page_window`,
`token_window`, `cursor_window`, `keyset_window`), links (`url_with`, `path_of`, `link_header`)
and errors (`bad_request`, `require`, `reject_unknown`), set `sizing` to the documented page
sizes, write its `reference`, cite the pages read in `source`, write down every guess in
`assumptions`, and add the value to the module's `CATALOGUE`. `test_real_api_models` then checks
the model against its reference, `scripts/real-apis` measures the client against it, and
`test_real_apis` holds the detector to `expected`. Two APIs of one shape count once in
`distinct_shapes`; prefer an API that adds a shape, or a vendor of the service's kind.
"""

from __future__ import annotations

from . import (
    asset_inventory,
    clouds,
    device_management,
    saas_business,
    saas_commerce_media,
    saas_dev_tools,
    saas_enterprise,
    saas_platforms,
    security_vendors,
    vuln_data,
)
from ._kit import RealApi, Reply, Request, Sizing, Tokens, make_records
from ._shapes import distinct_shapes, shape_of

CATALOGUE: tuple[RealApi, ...] = (
    *security_vendors.CATALOGUE,
    *device_management.CATALOGUE,
    *asset_inventory.CATALOGUE,
    *vuln_data.CATALOGUE,
    *clouds.CATALOGUE,
    *saas_dev_tools.CATALOGUE,
    *saas_enterprise.CATALOGUE,
    *saas_business.CATALOGUE,
    *saas_commerce_media.CATALOGUE,
    *saas_platforms.CATALOGUE,
)
"""Every modelled API: vendors of the service's kind first, then clouds, then SaaS."""

__all__ = [
    "CATALOGUE",
    "RealApi",
    "Reply",
    "Request",
    "Sizing",
    "Tokens",
    "distinct_shapes",
    "make_records",
    "shape_of",
]
