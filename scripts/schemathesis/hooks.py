"""Schemathesis hooks for scripts/schemathesis.sh.

The OpenAPI document describes every rule of a single field: types, required members,
minimum and maximum, lengths, patterns and enums. Two kinds of rule are beyond JSON
Schema, and the hooks below handle them openly:

1. Rules on what the service already holds: a body that names an advertiser, campaign,
   flight or site list that does not exist in the caller's account (BAD_REFERENCE), a
   flight that overlaps a stored one (OVERLAP), an external id already used. So that
   positive cases reach the handlers' success path, references in positive bodies are
   pointed at the demo account's own entities (`map_case`).
2. Rules that compare two fields of one body: an end date after its start, a daily
   budget within the lifetime one, a minimum within its maximum, a new flight starting
   after the service's now (START_IN_PAST), an advertiser and a campaign that belong
   together. JSON Schema has no way to say "greater than that other member".

A schema-valid request refused *only* for such reasons is the sandbox enforcing its
rules, not a gap in the document, so `filter_failure` drops that "schema-valid request
rejected" (ST202) failure. A refusal that names any other rule (a missing member, a value
out of range, a wrong type) is kept and fails the run: the document must describe it.
"""

import atexit
import collections
import html
import json
import os
import random
import re

import schemathesis

# Choices made here follow the run's seed when the script gives one, so a short run
# repeats itself.
RANDOM = random.Random(os.environ.get("FLIGHTDECK_ST_SEED") or None)

# The demo seed's account 1 (the `demo` user's): advertisers 1-3, campaigns 1-4, and its
# data partner's client and a registered redirect URI.
ACCOUNT = 1
CLIENT_ID = "demo-partner"
REDIRECT_URI = "http://127.0.0.1:8765/callback"
DAY_MS = 86_400_000
# The service clock the script starts the sandbox with, plus a margin for the run.
NOW_MS = 1_800_000_000_000 + 7 * DAY_MS
ADVERTISERS = [1, 2, 3]
CAMPAIGNS = [1, 2, 3, 4]
# Which advertiser each demo campaign belongs to (a creative naming both must agree).
ADVERTISER_OF = {1: 1, 2: 1, 3: 2, 4: 3}

# Codes of rules about stored state (see the crate docs of flightdeck_model::validate).
STATE_CODES = {"BAD_REFERENCE", "OVERLAP", "START_IN_PAST"}

# Texts of the rules that compare two members of one body, or a member with stored state,
# as the model words them (`validate/helpers.rs`, `validate/campaigns.rs`, the store).
RELATIONAL_TEXTS = (
    ": must be after ",  # dates_in_order: endDate after startDate
    ": must not exceed ",  # not_above: daily within lifetime, minimum within maximum
    "is already used by",  # externalAudienceId unique in the account
    "is not a flight of",  # a flight or cap names a flight of another campaign
    "is not the agency you are signed in to",  # agencyId is the caller's account
    "is not an audience of this ad order",
    "already has cap",  # one cap per flight of an ad order: the stored caps decide
    "already has a cap in this request",  # ...and per request (uniqueness by a member)
    # Site lists: which members a call takes depends on the stored list's type.
    "applies only to id-based site lists",
    "applies only to rule-based site lists",
    "can only be removed from an id-based list",
    # The body's bytes against its Content-Encoding header.
    "Content-Encoding is gzip but the body is not valid gzip",
    # Login page: the client and its redirect URIs are registered data; a PKCE method
    # needs its challenge (two query parameters, which JSON Schema cannot tie together).
    "Unknown client_id",
    "is not registered for client",
    "code_challenge_method was sent without code_challenge",
    # Ad-order status: which moves are refused depends on the stored status and end date.
    "an archived ad order cannot change status",
    "an ad order completes when its end date passes",
    "so it can only be archived",
)

# An upload's records name the segment of the URL, and its identifiers must be of the
# stored segment's dataType.
UPLOAD_TEXTS = ("must be the segment of the upload",)

# On append and overwrite the stored list's type decides whether `siteIds` or `rules`
# is required (the schema asks for one of them).
TYPE_DEPENDENT_CALLS = ("/v1/site-list/appendToSiteList", "/v1/site-list/overwriteSiteList")


def _messages(response):
    """The refusal's messages: the envelope's texts with codes, `{error}`'s text, or the
    alert of an HTML error page (the login page)."""
    text = response.content.decode("utf-8", "replace")
    alert = re.search(r'role="alert">([^<]*)<', text)
    if alert:
        return [("", alert.group(1))]
    try:
        body = json.loads(text)
    except (ValueError, TypeError):
        return None
    if isinstance(body, dict) and isinstance(body.get("messages"), list):
        return [(m.get("code", ""), m.get("message", "")) for m in body["messages"]]
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        return [("", part) for part in body["error"].split("; ")]
    if isinstance(body, dict) and isinstance(body.get("bad_records_details"), str):
        return [("", part) for part in body["bad_records_details"].split("; ")]
    return None


def _updates(body):
    return isinstance(body, dict) and isinstance(body.get("id"), int) and not isinstance(body.get("id"), bool)


def _relational(path, code, text, body):
    # An update is merged into the stored entity, whose members complete a pair or triple.
    if _updates(body) and "is required when" in text:
        return True
    if path in TYPE_DEPENDENT_CALLS and text.startswith(("rules: ", "siteIds: ")):
        return True
    if text.startswith("advertiserIds[") and " not found" in text:
        return True  # a segment's advertisers must exist in the account
    if path.endswith("/data") and ("].values" in text or any(t in text for t in UPLOAD_TEXTS)):
        return True
    return code in STATE_CODES or any(t in text for t in RELATIONAL_TEXTS)


# Dropped refusals by operation and rule, written at exit for the script to print: what
# the fuzzing could not hold against the document is counted, not hidden.
DROPPED = collections.Counter()


def _rule(code, text):
    """A refusal's rule without the values: its code, or its text after the field."""
    if code in STATE_CODES:
        return code
    text = html.unescape(text).split(": ", 1)[-1]
    text = re.sub(r'fpsegm[a-z0-9]+|"[^"]*"|\([^)]*\)', "…", text)
    return re.sub(r"[0-9]+(\.[0-9]+)?", "N", text)[:70]


@atexit.register
def _write_dropped():
    out = os.environ.get("FLIGHTDECK_ST_DROPPED")
    if out:
        rows = [{"operation": op, "rule": rule, "count": n} for (op, rule), n in DROPPED.most_common()]
        with open(out, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """Keeps every failure except ST202 refusals made only of relational rules."""
    if getattr(failure, "code", None) != "ST202" or response.status_code != 400:
        return True
    messages = _messages(response)
    if not messages:
        return True
    path = case.operation.path
    if not all(_relational(path, code, text, case.body) for code, text in messages):
        return True
    code, text = messages[0]
    DROPPED[(f"{case.method.upper()} {path}", _rule(code, text))] += 1
    return False


def _in_order(body, flight):
    """Dates in order (a new flight after the service's now), a daily budget within the
    lifetime one: values the schema allows, arranged as the relational rules ask."""
    start, end = body.get("startDate"), body.get("endDate")
    if flight and body.get("id") is None and isinstance(start, int) and start <= NOW_MS:
        start = body["startDate"] = NOW_MS + (start % (365 * DAY_MS))
    if isinstance(start, int) and isinstance(end, int) and start >= end:
        if start < 2**62:
            body["endDate"] = start + DAY_MS
        else:
            body["startDate"] = end - DAY_MS
    daily, lifetime = body.get("dailyBudget"), body.get("maxBudget", body.get("lifetimeBudget"))
    if isinstance(daily, (int, float)) and isinstance(lifetime, (int, float)) and daily > lifetime:
        body["dailyBudget"] = lifetime
    lo, hi = body.get("minBidMultiplier"), body.get("maxBidMultiplier")
    if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and lo > hi:
        body["minBidMultiplier"], body["maxBidMultiplier"] = hi, lo


def _point_at_demo(body, flight=False):
    if not isinstance(body, dict):
        return
    _in_order(body, flight)
    for f in body.get("flights") or []:
        if isinstance(f, dict):
            _in_order(f, False)
    if isinstance(body.get("externalAudienceId"), str):
        # Unique per account: a fresh one each time.
        body["externalAudienceId"] += "-%08x" % RANDOM.getrandbits(32)
    if "agencyId" in body:
        body["agencyId"] = ACCOUNT
    if "accountId" in body:
        body["accountId"] = ACCOUNT
    if "advertiserId" in body:
        body["advertiserId"] = RANDOM.choice(ADVERTISERS)
    if isinstance(body.get("advertiserIds"), list) and body["advertiserIds"]:
        body["advertiserIds"] = [RANDOM.choice(ADVERTISERS)]
    elif isinstance(body.get("advertiserIds"), int):
        body["advertiserIds"] = RANDOM.choice(ADVERTISERS)
    if "campaignId" in body:
        body["campaignId"] = RANDOM.choice(CAMPAIGNS)
        if "advertiserId" in body:
            body["advertiserId"] = ADVERTISER_OF[body["campaignId"]]


@schemathesis.hook
def map_case(context, case):
    """Points the references of positive bodies at the demo account's entities."""
    meta = getattr(case, "meta", None)
    mode = getattr(getattr(meta, "generation", None), "mode", None)
    if mode is None or not getattr(mode, "is_positive", False):
        return case
    path = case.operation.path
    body = case.body
    if path.startswith("/v1/oauth2/login"):
        for params in (case.query, body):
            if isinstance(params, dict):
                if params.get("client_id"):
                    params["client_id"] = CLIENT_ID
                if params.get("redirect_uri"):
                    params["redirect_uri"] = REDIRECT_URI
        return case
    if path.endswith("/data") and isinstance(body, list):
        segment = (case.path_parameters or {}).get("service_segment_id")
        for record in body:
            if isinstance(record, dict) and segment is not None:
                record["serviceSegmentId"] = segment
        return case
    if isinstance(body, list):
        for item in body:
            _point_at_demo(item, flight="/campaignflight/" in path)
    else:
        _point_at_demo(body)
    return case
