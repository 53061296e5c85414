//! The OpenAPI document at `GET /openapi.json`, held to the running server over real
//! HTTP: every endpoint of the service interface is documented and nothing else, every
//! documented operation is routed, and the schemas use the exact wire names.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::error::Error;

use flightdeck_sandbox::{Config, Running, Sandbox, Seed};
use reqwest::{Client, Method, StatusCode};
use serde_json::Value;

type TestResult = Result<(), Box<dyn Error>>;

/// One operation of the service interface and what the document must say about it.
struct Endpoint {
    method: &'static str,
    path: &'static str,
    /// Request body schema: a component name, `[Name]` for an array of it, or `-` for none.
    request: &'static str,
    /// 200 body: `Name`, `envelope Name` / `envelope [Name]` for the `{messages, entity}`
    /// envelope around it, `html`, or `-` when the success is not a 200 (the login redirect).
    success: &'static str,
    deprecated: bool,
}

const fn ep(
    method: &'static str,
    path: &'static str,
    request: &'static str,
    success: &'static str,
) -> Endpoint {
    Endpoint {
        method,
        path,
        request,
        success,
        deprecated: false,
    }
}

const fn deprecated(
    method: &'static str,
    path: &'static str,
    request: &'static str,
    success: &'static str,
) -> Endpoint {
    Endpoint {
        deprecated: true,
        ..ep(method, path, request, success)
    }
}

/// Every endpoint of the service interface, plus the sandbox's cap delete, the two
/// audience routes the interface does not show, and the trafficking endpoints of the
/// service's reference.
const ENDPOINTS: &[Endpoint] = &[
    // Token endpoints.
    ep("GET", "/v1/oauth2/login", "-", "html"),
    ep("POST", "/v1/oauth2/login", "LoginForm", "-"),
    ep("POST", "/v1/oauth2/token", "TokenRequest", "TokenResponse"),
    ep("POST", "/v1/oauth2/authenticate", "-", "TokenResponse"),
    // Ad orders.
    deprecated("POST", "/v1/adorder/save", "AdOrder", "envelope AdOrder"),
    ep(
        "GET",
        "/v1/adorder/getAllAdOrders",
        "-",
        "envelope [AdOrder]",
    ),
    // Campaigns, flights and flight caps.
    ep("POST", "/v1/campaign/save", "Campaign", "envelope Campaign"),
    ep(
        "GET",
        "/v1/campaign/getCampaignsByAdvertiser",
        "-",
        "envelope [Campaign]",
    ),
    deprecated(
        "POST",
        "/v1/campaignflight/byCampaign/{campaign_id}",
        "[CampaignFlight]",
        "envelope [CampaignFlight]",
    ),
    ep(
        "POST",
        "/v1/campaignflightcaps/byAdOrder/{order_id}",
        "[FlightCap]",
        "envelope [FlightCap]",
    ),
    ep(
        "DELETE",
        "/v1/campaignflightcaps/{cap_id}",
        "-",
        "envelope [FlightCap]",
    ),
    // Advertisers.
    deprecated(
        "POST",
        "/v1/advertiser/save",
        "Advertiser",
        "envelope Advertiser",
    ),
    ep("GET", "/v1/advertiser", "-", "envelope [Advertiser]"),
    deprecated(
        "GET",
        "/v1/advertiser/getAllAdvertisers",
        "-",
        "envelope [Advertiser]",
    ),
    // Creatives.
    ep("POST", "/v1/creative/save", "Creative", "envelope Creative"),
    // From the service's reference beyond the interface document.
    ep(
        "GET",
        "/v1/campaign/{campaign_id}/creatives",
        "-",
        "envelope [ListedCreative]",
    ),
    ep(
        "GET",
        "/v1/creative/getCreativesByAdOrder/{ad_order_id}",
        "-",
        "envelope [ListedCreative]",
    ),
    ep(
        "POST",
        "/v1/adorder/updateStatus",
        "AdOrderStatusUpdate",
        "envelope AdOrderStatusUpdate",
    ),
    ep(
        "GET",
        "/v1/adorder/getAdOrdersByCampaign",
        "-",
        "envelope [AdOrder]",
    ),
    // Site lists.
    ep(
        "POST",
        "/v1/site-list/addNewSiteList",
        "SiteList",
        "envelope SiteList",
    ),
    ep(
        "POST",
        "/v1/site-list/appendToSiteList",
        "SiteList",
        "envelope SiteList",
    ),
    ep(
        "POST",
        "/v1/site-list/overwriteSiteList",
        "SiteList",
        "envelope SiteList",
    ),
    ep(
        "POST",
        "/v1/site-list/removeSites",
        "SiteList",
        "envelope SiteList",
    ),
    // Audience segments.
    ep(
        "POST",
        "/v1/audiences",
        "AudienceSegment",
        "AudienceSegment",
    ),
    ep("GET", "/v1/audiences", "-", "AudienceList"),
    ep(
        "GET",
        "/v1/audiences/{service_segment_id}",
        "-",
        "AudienceSegment",
    ),
    ep(
        "POST",
        "/v1/audiences/{service_segment_id}/data",
        "[AudienceDataRecord]",
        "AudienceDataResult",
    ),
];

const HTTP_METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Which body shapes and credentials an endpoint belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    /// `/v1/oauth2/login`: HTML pages, no credentials.
    LoginPage,
    /// `/v1/oauth2/token` and `/authenticate`: Basic, `{error, error_description}`.
    Token,
    /// `/v1/audiences…`: Bearer only, `{error}`.
    Audience,
    /// Everything else: Bearer or Basic, the envelope.
    Business,
}

fn family(path: &str) -> Family {
    if path == "/v1/oauth2/login" {
        Family::LoginPage
    } else if path.starts_with("/v1/oauth2/") {
        Family::Token
    } else if path.starts_with("/v1/audiences") {
        Family::Audience
    } else {
        Family::Business
    }
}

async fn start() -> Result<Running, Box<dyn Error>> {
    let sandbox = Sandbox::open(&Config {
        seed: Seed::None,
        ..Default::default()
    })?;
    Ok(sandbox.spawn("127.0.0.1:0".parse()?).await?)
}

fn client() -> Result<Client, Box<dyn Error>> {
    // No proxy: the environment's proxy settings must not capture loopback calls; no
    // redirects: the login POST answers 303.
    Ok(Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()?)
}

/// Starts a sandbox and fetches its document.
async fn document() -> Result<(Running, Value), Box<dyn Error>> {
    let running = start().await?;
    let response = client()?
        .get(format!("{}/openapi.json", running.base_url()))
        .send()
        .await?;
    assert_eq!(response.status(), StatusCode::OK);
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(
        content_type.starts_with("application/json"),
        "content type {content_type}"
    );
    let doc: Value = response.json().await?;
    Ok((running, doc))
}

/// `(METHOD, path)` of every operation in the document.
fn documented(doc: &Value) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in HTTP_METHODS {
            if item.get(*method).is_some() {
                out.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    out
}

fn operation<'a>(doc: &'a Value, method: &str, path: &str) -> &'a Value {
    let op = &doc["paths"][path][method.to_lowercase()];
    assert!(op.is_object(), "{method} {path} is not documented");
    op
}

fn component<'a>(doc: &'a Value, name: &str) -> &'a Value {
    let schema = &doc["components"]["schemas"][name];
    assert!(schema.is_object(), "no component schema {name}");
    schema
}

/// Follows a `$ref` to its component, if the schema is one.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(r) => component(doc, ref_name(r)),
        None => schema,
    }
}

fn ref_name(reference: &str) -> &str {
    reference
        .strip_prefix("#/components/schemas/")
        .unwrap_or_else(|| panic!("not a component reference: {reference}"))
}

/// `Name` for a reference to (or an inlined copy of) a component, `[Name]` for an array
/// of one; anything else is shown as JSON.
fn describe(doc: &Value, schema: &Value) -> String {
    if let Some(r) = schema["$ref"].as_str() {
        return ref_name(r).to_owned();
    }
    // A request body that narrows a component (`allOf: [{$ref}, {required…}]`) is that
    // component.
    if let Some(r) = schema["allOf"][0]["$ref"].as_str() {
        return ref_name(r).to_owned();
    }
    if schema["type"] == "array" {
        return format!("[{}]", describe(doc, &schema["items"]));
    }
    let components = doc["components"]["schemas"].as_object().expect("schemas");
    if let Some((name, _)) = components.iter().find(|(_, c)| *c == schema) {
        return name.clone();
    }
    schema.to_string()
}

/// The `application/json` schema of an operation's response with `status`.
fn response_schema<'a>(op: &'a Value, status: &str) -> &'a Value {
    &op["responses"][status]["content"]["application/json"]["schema"]
}

/// What the server answers a request no route takes: axum's bare 405 for a routed path
/// with another method, and for an unrouted path whatever the router's fallback renders
/// (learnt by asking for a path that surely is not routed).
struct Miss {
    status: StatusCode,
    body: String,
}

impl Miss {
    async fn learn(http: &Client, base: &str) -> Result<Self, Box<dyn Error>> {
        let response = http
            .get(format!("{base}/v1/surely-not-a-route/4f9c"))
            .send()
            .await?;
        let status = response.status();
        let body = response.text().await?;
        assert_eq!(status, StatusCode::NOT_FOUND, "unrouted path: {body:?}");
        Ok(Self { status, body })
    }

    fn is_miss(&self, status: StatusCode, body: &str) -> bool {
        status == StatusCode::METHOD_NOT_ALLOWED || (status == self.status && body == self.body)
    }
}

/// The path with every `{param}` replaced by `1`.
fn concrete(path: &str) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('}').expect("closing brace") + open;
        out.push('1');
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

fn path_params(path: &str) -> BTreeSet<String> {
    path.split('/')
        .filter_map(|seg| seg.strip_prefix('{')?.strip_suffix('}'))
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn serves_an_openapi_3_document_without_credentials() -> TestResult {
    let (_running, doc) = document().await?;
    let version = doc["openapi"].as_str().expect("openapi version");
    assert!(version.starts_with("3."), "openapi {version}");
    assert_eq!(doc["info"]["title"], "Flightdeck sandbox");
    assert_eq!(doc["info"]["version"], env!("CARGO_PKG_VERSION"));
    Ok(())
}

#[tokio::test]
async fn documents_exactly_the_endpoints_of_the_service() -> TestResult {
    let (_running, doc) = document().await?;
    let expected: BTreeSet<(String, String)> = ENDPOINTS
        .iter()
        .map(|e| (e.method.to_owned(), e.path.to_owned()))
        .collect();
    assert_eq!(expected.len(), ENDPOINTS.len(), "duplicate in ENDPOINTS");
    let actual = documented(&doc);
    let undocumented: Vec<_> = expected.difference(&actual).collect();
    let unknown: Vec<_> = actual.difference(&expected).collect();
    assert!(
        undocumented.is_empty() && unknown.is_empty(),
        "missing from the document: {undocumented:?}; documented but not in the interface: {unknown:?}"
    );
    Ok(())
}

#[tokio::test]
async fn every_documented_operation_is_routed() -> TestResult {
    let (running, doc) = document().await?;
    let http = client()?;
    let base = running.base_url();

    // The classifier must recognise real misses, or the checks below prove nothing.
    let miss = Miss::learn(&http, &base).await?;
    for (method, path, why) in [
        (Method::GET, "/v1/advertiser/nope", "unknown path"),
        (
            Method::POST,
            "/v1/audiences/1/nope",
            "unknown path below a parameter",
        ),
        (Method::DELETE, "/v1/advertiser", "known path, wrong method"),
        (
            Method::GET,
            "/v1/campaignflightcaps/1",
            "known path, wrong method",
        ),
    ] {
        let response = http
            .request(method.clone(), format!("{base}{path}"))
            .send()
            .await?;
        let status = response.status();
        let body = response.text().await?;
        assert!(
            miss.is_miss(status, &body),
            "{method} {path} ({why}) answered {status} {body:?}, not a routing miss"
        );
    }

    for (method, path) in documented(&doc) {
        let url = format!("{base}{}", concrete(&path));
        let response = http
            .request(Method::from_bytes(method.as_bytes())?, &url)
            .send()
            .await?;
        let status = response.status();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let www_authenticate = response
            .headers()
            .contains_key(reqwest::header::WWW_AUTHENTICATE);
        let body = response.text().await?;
        let what = format!("{method} {url} → {status} {body:?}");
        assert!(!miss.is_miss(status, &body), "not routed: {what}");

        // The answer without credentials is one the document promises, in its shape.
        let op = operation(&doc, &method, &path);
        assert!(
            op["responses"][status.as_str()].is_object(),
            "status not documented: {what}"
        );
        match family(&path) {
            Family::Business => {
                assert_eq!(status, StatusCode::UNAUTHORIZED, "{what}");
                assert!(www_authenticate, "no WWW-Authenticate: {what}");
                let json: Value = serde_json::from_str(&body)?;
                assert_eq!(json["entity"], Value::Null, "{what}");
                assert_eq!(json["messages"][0]["level"], "ERROR", "{what}");
                assert_eq!(describe(&doc, response_schema(op, "401")), "ErrorEnvelope");
            }
            Family::Audience => {
                assert_eq!(status, StatusCode::UNAUTHORIZED, "{what}");
                let json: Value = serde_json::from_str(&body)?;
                assert!(json["error"].is_string(), "{what}");
                assert_eq!(json.as_object().map(|o| o.len()), Some(1), "{what}");
                assert_eq!(describe(&doc, response_schema(op, "401")), "AudienceError");
            }
            Family::Token => {
                assert!(
                    status == StatusCode::BAD_REQUEST || status == StatusCode::UNAUTHORIZED,
                    "{what}"
                );
                let json: Value = serde_json::from_str(&body)?;
                assert!(json["error"].is_string(), "{what}");
                assert!(json["error_description"].is_string(), "{what}");
                assert_eq!(
                    describe(&doc, response_schema(op, status.as_str())),
                    "TokenError"
                );
            }
            Family::LoginPage => {
                // GET without client_id, POST without a form: the 400 error page.
                assert_eq!(status, StatusCode::BAD_REQUEST, "{what}");
                assert!(
                    content_type.starts_with("text/html"),
                    "{what} ({content_type})"
                );
                assert!(
                    op["responses"]["400"]["content"]["text/html"].is_object(),
                    "400 page not documented as HTML: {what}"
                );
            }
        }
    }
    Ok(())
}

#[tokio::test]
async fn documented_paths_take_no_undocumented_method() -> TestResult {
    let (running, doc) = document().await?;
    let http = client()?;
    let base = running.base_url();
    let miss = Miss::learn(&http, &base).await?;
    let ops = documented(&doc);
    let paths: BTreeSet<&String> = ops.iter().map(|(_, p)| p).collect();
    for path in paths {
        // HEAD and OPTIONS are left out: axum answers HEAD for every GET route.
        for method in [
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
        ] {
            if ops.contains(&(method.as_str().to_owned(), path.clone())) {
                continue;
            }
            let url = format!("{base}{}", concrete(path));
            let response = http.request(method.clone(), &url).send().await?;
            let status = response.status();
            let body = response.text().await?;
            assert!(
                miss.is_miss(status, &body),
                "{method} {url} is routed but not documented: {status} {body:?}"
            );
        }
    }
    Ok(())
}

#[tokio::test]
async fn operations_document_their_bodies_parameters_and_security() -> TestResult {
    let (_running, doc) = document().await?;
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["bearer"]["type"], "http");
    assert_eq!(schemes["bearer"]["scheme"], "bearer");
    assert_eq!(schemes["bearer"]["bearerFormat"], "JWT");
    assert_eq!(schemes["basic"]["type"], "http");
    assert_eq!(schemes["basic"]["scheme"], "basic");

    for e in ENDPOINTS {
        let op = operation(&doc, e.method, e.path);
        let name = format!("{} {}", e.method, e.path);

        // Request body.
        let body = &op["requestBody"];
        if e.request == "-" {
            assert!(body.is_null(), "{name}: unexpected request body {body}");
        } else {
            let content = body["content"].as_object().expect("request content");
            assert!(!content.is_empty(), "{name}: request body without content");
            for (media, c) in content {
                assert_eq!(describe(&doc, &c["schema"]), e.request, "{name} ({media})");
            }
        }

        // Success body.
        match e.success {
            "-" => {}
            "html" => assert!(
                op["responses"]["200"]["content"]["text/html"].is_object(),
                "{name}: 200 is not HTML"
            ),
            s => {
                let schema = response_schema(op, "200");
                let got = match s.strip_prefix("envelope ") {
                    Some(_) => {
                        let envelope = resolve(&doc, schema);
                        assert_eq!(
                            envelope["properties"]["messages"]["items"]["$ref"],
                            "#/components/schemas/Message",
                            "{name}"
                        );
                        format!(
                            "envelope {}",
                            describe(&doc, &envelope["properties"]["entity"])
                        )
                    }
                    None => describe(&doc, schema),
                };
                assert_eq!(got, s, "{name}: 200 body");
            }
        }

        // Error bodies, in the shape of the family.
        let responses = op["responses"].as_object().expect("responses");
        for (status, response) in responses {
            if !status.starts_with('4') && !status.starts_with('5') {
                continue;
            }
            let schema = &response["content"]["application/json"]["schema"];
            let expected = match family(e.path) {
                Family::Business => "ErrorEnvelope",
                // An upload refused for bad records answers the upload answer, not {error}.
                Family::Audience if e.path.ends_with("/data") && status == "400" => {
                    "AudienceUploadRefusal"
                }
                Family::Audience => "AudienceError",
                Family::Token => "TokenError",
                Family::LoginPage => continue,
            };
            assert_eq!(describe(&doc, schema), expected, "{name} {status}");
        }
        let mut errors: Vec<&str> = responses.keys().map(String::as_str).collect();
        errors.retain(|s| s.starts_with('4'));
        match family(e.path) {
            Family::Business | Family::Audience | Family::Token => {
                assert!(errors.contains(&"401"), "{name}: no 401")
            }
            Family::LoginPage => assert!(errors.contains(&"400"), "{name}: no 400"),
        }

        // Path parameters: exactly the placeholders of the path, required.
        let params = op["parameters"].as_array().cloned().unwrap_or_default();
        let in_path: BTreeSet<String> = params
            .iter()
            .filter(|p| p["in"] == "path")
            .map(|p| {
                assert_eq!(p["required"], true, "{name}: optional path parameter {p}");
                p["name"].as_str().expect("parameter name").to_owned()
            })
            .collect();
        assert_eq!(in_path, path_params(e.path), "{name}: path parameters");

        // Security.
        let mut security: Vec<String> = op["security"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .flat_map(|req| req.as_object().cloned().unwrap_or_default().into_iter())
            .map(|(scheme, _)| scheme)
            .collect();
        security.sort();
        let expected: &[&str] = match family(e.path) {
            Family::Business => &["basic", "bearer"],
            Family::Audience => &["bearer"],
            Family::Token => &["basic"],
            Family::LoginPage => &[],
        };
        assert_eq!(security, expected, "{name}: security");
    }

    // Query parameters.
    let query = |method: &str, path: &str| -> Vec<(String, bool)> {
        operation(&doc, method, path)["parameters"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .filter(|p| p["in"] == "query")
            .map(|p| {
                (
                    p["name"].as_str().unwrap_or_default().to_owned(),
                    p["required"] == true,
                )
            })
            .collect()
    };
    assert_eq!(
        query("GET", "/v1/advertiser"),
        [("externalAdvertiserId".to_owned(), false)]
    );
    assert_eq!(
        query("GET", "/v1/campaign/getCampaignsByAdvertiser"),
        [("id".to_owned(), true)]
    );
    assert_eq!(
        query("GET", "/v1/audiences"),
        [("page".to_owned(), false), ("pageSize".to_owned(), false)]
    );
    let login: Vec<String> = query("GET", "/v1/oauth2/login")
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(
        login,
        [
            "client_id",
            "redirect_uri",
            "state",
            "code_challenge",
            "code_challenge_method"
        ]
    );
    Ok(())
}

#[tokio::test]
async fn schemas_use_the_wire_names_and_deprecations_are_flagged() -> TestResult {
    let (_running, doc) = document().await?;
    let has =
        |schema: &str, property: &str| component(&doc, schema)["properties"][property].is_object();
    for p in ["max_bid", "io_number", "ioNumber", "externalAdOrderId"] {
        assert!(has("AdOrder", p), "AdOrder.{p}");
    }
    for p in ["externalCreativeid", "impressionTrackingPixel_1", "type"] {
        assert!(has("Creative", p), "Creative.{p}");
    }
    assert!(
        has("Campaign", "dailyFrequencyCap"),
        "Campaign.dailyFrequencyCap"
    );
    for p in ["error", "error_description"] {
        assert!(has("TokenError", p), "TokenError.{p}");
    }
    assert!(has("AudienceError", "error"), "AudienceError.error");
    for p in ["messages", "entity"] {
        assert!(has("ErrorEnvelope", p), "ErrorEnvelope.{p}");
    }
    // The Rust spellings must not leak.
    for (schema, p) in [
        ("AdOrder", "io_number_out"),
        ("AdOrder", "maxBid"),
        ("Creative", "type_"),
        ("Creative", "externalCreativeId"),
        ("AdOrder", "extra"),
    ] {
        assert!(!has(schema, p), "{schema}.{p} is not a wire name");
    }

    for e in ENDPOINTS {
        let op = operation(&doc, e.method, e.path);
        assert_eq!(
            op["deprecated"] == true,
            e.deprecated,
            "{} {}: deprecated flag",
            e.method,
            e.path
        );
    }
    Ok(())
}

#[tokio::test]
async fn every_reference_resolves() -> TestResult {
    let (_running, doc) = document().await?;
    fn walk<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
        match v {
            Value::Object(map) => {
                for (k, v) in map {
                    match (k.as_str(), v) {
                        ("$ref", Value::String(r)) => out.push(r),
                        _ => walk(v, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut refs = Vec::new();
    walk(&doc, &mut refs);
    assert!(!refs.is_empty());
    for r in refs {
        component(&doc, ref_name(r));
    }
    // Operation ids are unique.
    let mut ids = BTreeSet::new();
    for (method, path) in documented(&doc) {
        let id = operation(&doc, &method, &path)["operationId"]
            .as_str()
            .expect("operationId")
            .to_owned();
        assert!(ids.insert(id.clone()), "duplicate operationId {id}");
    }
    Ok(())
}

#[tokio::test]
async fn the_upload_documents_its_record_array_refusals_and_limits() -> TestResult {
    let (_running, doc) = document().await?;
    let path = "/v1/audiences/{service_segment_id}/data";
    let op = operation(&doc, "POST", path);

    // The request: an array of records with the documented wire names.
    let record = component(&doc, "AudienceDataRecord");
    let mut props: Vec<&str> = record["properties"]
        .as_object()
        .expect("record properties")
        .keys()
        .map(String::as_str)
        .collect();
    props.sort_unstable();
    assert_eq!(props, ["countryCode", "serviceSegmentId", "values"]);

    // The answer: exactly the documented snake_case keys.
    let result = component(&doc, "AudienceDataResult");
    let mut props: Vec<&str> = result["properties"]
        .as_object()
        .expect("result properties")
        .keys()
        .map(String::as_str)
        .collect();
    props.sort_unstable();
    assert_eq!(
        props,
        [
            "bad_records",
            "bad_records_details",
            "failed_publishes",
            "message",
            "published"
        ]
    );

    // A 400 is either the upload answer (bad records) or {error}.
    let refusal = component(&doc, "AudienceUploadRefusal");
    let mut one_of: Vec<String> = refusal["oneOf"]
        .as_array()
        .expect("oneOf")
        .iter()
        .map(|s| describe(&doc, s))
        .collect();
    one_of.sort();
    assert_eq!(one_of, ["AudienceDataResult", "AudienceError"]);

    // Size limits, the content encoding, and gzip as a header.
    for status in ["413", "415"] {
        assert_eq!(
            describe(&doc, response_schema(op, status)),
            "AudienceError",
            "{status}"
        );
    }
    let headers: Vec<&str> = op["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .filter(|p| p["in"] == "header")
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(headers, ["Content-Encoding"]);
    let text = op["description"].as_str().unwrap_or_default();
    assert!(text.contains("10,000,000 bytes"), "{text}");
    Ok(())
}

#[tokio::test]
async fn creative_save_documents_that_it_only_creates() -> TestResult {
    let (_running, doc) = document().await?;
    let op = operation(&doc, "POST", "/v1/creative/save");
    let text = format!(
        "{} {}",
        op["description"].as_str().unwrap_or_default(),
        op["responses"]["400"]["description"]
            .as_str()
            .unwrap_or_default()
    );
    assert!(
        text.contains("`id`") && text.contains("no creative update"),
        "{text}"
    );
    Ok(())
}

#[tokio::test]
async fn schemas_state_the_rules_the_sandbox_enforces() -> TestResult {
    use flightdeck_model::validate::limits;
    let (_running, doc) = document().await?;
    let required = |name: &str| -> Vec<String> {
        component(&doc, name)["required"]
            .as_array()
            .map(|r| {
                r.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let member = |name: &str, m: &str| component(&doc, name)["properties"][m].clone();

    // Required members (those every answer carries too).
    for (name, members) in [
        (
            "Advertiser",
            &["name", "agencyId", "currency", "category"][..],
        ),
        (
            "Campaign",
            &["advertiserId", "name", "domain", "iabCategory"],
        ),
        ("AdOrder", &["name", "campaignId", "optimizationGoal"]),
        (
            "Creative",
            &["name", "creativeType", "creativeSubtype", "type"],
        ),
        ("Size", &["width", "height"]),
        ("SiteRule", &["name", "type"]),
    ] {
        let got = required(name);
        for m in members {
            assert!(
                got.iter().any(|g| g == m),
                "{name}.{m} not required: {got:?}"
            );
        }
    }
    // Limits, from the model's constants.
    assert_eq!(
        member("Creative", "name")["maxLength"],
        limits::CREATIVE_NAME_MAX
    );
    assert_eq!(
        member("Creative", "externalCreativeid")["maxLength"],
        limits::CREATIVE_EXTERNAL_ID_MAX
    );
    assert_eq!(member("Size", "width")["minimum"], 1);
    assert_eq!(
        member("Size", "width")["maximum"],
        limits::CREATIVE_SIZE_MAX
    );
    assert_eq!(
        member("Advertiser", "externalAdvertiserId")["maxLength"],
        limits::EXTERNAL_ADVERTISER_ID_MAX
    );
    assert_eq!(
        member("AudienceSegment", "ttl")["minimum"],
        flightdeck_model::TTL_MIN_SECS
    );
    assert_eq!(
        member("AudienceSegment", "ttl")["maximum"],
        flightdeck_model::TTL_MAX_SECS
    );
    assert_eq!(member("AdOrder", "hourlyFrontload")["maximum"], 100.0);
    assert_eq!(member("AdOrderAudience", "weight")["maximum"], 100);
    // Enums: the sandbox's whole catalogue, where it refuses other values.
    assert_eq!(
        component(&doc, "OptimizationGoal")["enum"],
        serde_json::json!(flightdeck_model::OptimizationGoal::known_names())
    );
    assert_eq!(
        component(&doc, "TimezoneName")["enum"],
        serde_json::json!(["AKT", "CT", "ET", "GMT", "HST", "MT", "N", "PT"])
    );
    // The creative matrix: one schema per cell.
    let creative = &operation(&doc, "POST", "/v1/creative/save")["requestBody"]["content"]["application/json"]
        ["schema"];
    let cells = creative["allOf"][2]["oneOf"]
        .as_array()
        .expect("matrix cells");
    assert_eq!(
        cells.len(),
        flightdeck_model::validate::creative_matrix().len()
    );
    // Query parameters: the page size the listing accepts.
    let page_size = operation(&doc, "GET", "/v1/audiences")["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .find(|p| p["name"] == "pageSize")
        .expect("pageSize")["schema"]
        .clone();
    assert_eq!(page_size["maximum"], 500);
    // Every operation with a JSON body documents the 415 it answers to another type.
    for e in ENDPOINTS {
        let op = operation(&doc, e.method, e.path);
        let json_body = op["requestBody"]["content"]["application/json"].is_object();
        if json_body && !e.path.starts_with("/v1/oauth2/") {
            assert!(
                op["responses"]["415"].is_object(),
                "{} {}: no 415",
                e.method,
                e.path
            );
        }
    }
    Ok(())
}
