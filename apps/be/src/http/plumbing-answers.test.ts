import { rawAnswers, type RawAnswer, type RawRequest } from "@talkide/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readLocalAdmin } from "../auth/local-admin.ts";
import { startHarness, type Harness } from "../test-support/harness.ts";

/** What @fastify/helmet adds to every answer that passed the router (security-headers.ts). */
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'self';script-src 'self';style-src 'self';img-src 'self' data:;font-src 'self';connect-src 'self';object-src 'none';base-uri 'none';form-action 'self';frame-ancestors 'none'",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "origin-agent-cluster": "?1",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-dns-prefetch-control": "off",
  "x-download-options": "noopen",
  "x-frame-options": "DENY",
  "x-permitted-cross-domain-policies": "none",
  "x-xss-protection": "0",
};

/**
 * Recorded before the plumbing moved to service-kit: a changed answer is a change of the API.
 */
const EXPECTED: Record<string, RawAnswer> = {
  health: {
    status: 200,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "37",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"status":"ok","database":"embedded"}',
  },
  "no credential": {
    status: 401,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "214",
      "content-type": "application/problem+json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide"',
    },
    body: '{"type":"urn:talkide:problem:unauthorized","title":"Unauthorized","status":401,"code":"unauthorized","detail":"Sign in: open a sign-in link in the console, or send an API token as `Authorization: Bearer <token>`."}',
  },
  "empty header": {
    status: 401,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "271",
      "content-type": "application/problem+json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide"',
    },
    body: '{"type":"urn:talkide:problem:unauthorized","title":"Unauthorized","status":401,"code":"unauthorized","detail":"This API token is not valid (unknown, revoked or expired); create a new one in the console\'s Account view, or run `npx talkide-be create-token --email <you>`."}',
  },
  "scheme only": {
    status: 401,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "271",
      "content-type": "application/problem+json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide"',
    },
    body: '{"type":"urn:talkide:problem:unauthorized","title":"Unauthorized","status":401,"code":"unauthorized","detail":"This API token is not valid (unknown, revoked or expired); create a new one in the console\'s Account view, or run `npx talkide-be create-token --email <you>`."}',
  },
  "another scheme": {
    status: 401,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "271",
      "content-type": "application/problem+json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide"',
    },
    body: '{"type":"urn:talkide:problem:unauthorized","title":"Unauthorized","status":401,"code":"unauthorized","detail":"This API token is not valid (unknown, revoked or expired); create a new one in the console\'s Account view, or run `npx talkide-be create-token --email <you>`."}',
  },
  "two words": {
    status: 401,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "271",
      "content-type": "application/problem+json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide"',
    },
    body: '{"type":"urn:talkide:problem:unauthorized","title":"Unauthorized","status":401,"code":"unauthorized","detail":"This API token is not valid (unknown, revoked or expired); create a new one in the console\'s Account view, or run `npx talkide-be create-token --email <you>`."}',
  },
  "unknown token": {
    status: 401,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "271",
      "content-type": "application/problem+json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide"',
    },
    body: '{"type":"urn:talkide:problem:unauthorized","title":"Unauthorized","status":401,"code":"unauthorized","detail":"This API token is not valid (unknown, revoked or expired); create a new one in the console\'s Account view, or run `npx talkide-be create-token --email <you>`."}',
  },
  "a token out of the alphabet": {
    status: 401,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "271",
      "content-type": "application/problem+json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide"',
    },
    body: '{"type":"urn:talkide:problem:unauthorized","title":"Unauthorized","status":401,"code":"unauthorized","detail":"This API token is not valid (unknown, revoked or expired); create a new one in the console\'s Account view, or run `npx talkide-be create-token --email <you>`."}',
  },
  "a token longer than any": {
    status: 401,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "271",
      "content-type": "application/problem+json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide"',
    },
    body: '{"type":"urn:talkide:problem:unauthorized","title":"Unauthorized","status":401,"code":"unauthorized","detail":"This API token is not valid (unknown, revoked or expired); create a new one in the console\'s Account view, or run `npx talkide-be create-token --email <you>`."}',
  },
  tab: {
    status: 401,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "271",
      "content-type": "application/problem+json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide"',
    },
    body: '{"type":"urn:talkide:problem:unauthorized","title":"Unauthorized","status":401,"code":"unauthorized","detail":"This API token is not valid (unknown, revoked or expired); create a new one in the console\'s Account view, or run `npx talkide-be create-token --email <you>`."}',
  },
  "lower case and two spaces": {
    status: 200,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "15",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"projects":[]}',
  },
  "an unknown session cookie": {
    status: 401,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "214",
      "content-type": "application/problem+json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide"',
    },
    body: '{"type":"urn:talkide:problem:unauthorized","title":"Unauthorized","status":401,"code":"unauthorized","detail":"Sign in: open a sign-in link in the console, or send an API token as `Authorization: Bearer <token>`."}',
  },
  "admin: no credential": {
    status: 401,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "257",
      "content-type": "application/problem+json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-admin"',
    },
    body: '{"type":"urn:talkide:problem:admin_token_invalid","title":"Unauthorized","status":401,"code":"admin_token_invalid","detail":"Send the service\'s admin token (in <data dir>/admin-token) as `Authorization: Bearer <token>`; `npx talkide-be` does this for you."}',
  },
  "admin: a user's token": {
    status: 401,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "257",
      "content-type": "application/problem+json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-admin"',
    },
    body: '{"type":"urn:talkide:problem:admin_token_invalid","title":"Unauthorized","status":401,"code":"admin_token_invalid","detail":"Send the service\'s admin token (in <data dir>/admin-token) as `Authorization: Bearer <token>`; `npx talkide-be` does this for you."}',
  },
  "admin: tab": {
    status: 401,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "257",
      "content-type": "application/problem+json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-admin"',
    },
    body: '{"type":"urn:talkide:problem:admin_token_invalid","title":"Unauthorized","status":401,"code":"admin_token_invalid","detail":"Send the service\'s admin token (in <data dir>/admin-token) as `Authorization: Bearer <token>`; `npx talkide-be` does this for you."}',
  },
  "admin: lower case": {
    status: 404,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "142",
      "content-type": "application/problem+json; charset=utf-8",
    },
    body: '{"type":"urn:talkide:problem:user_not_found","title":"User not found","status":404,"code":"user_not_found","detail":"No user has this email."}',
  },
  "no route": {
    status: 401,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "214",
      "content-type": "application/problem+json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide"',
    },
    body: '{"type":"urn:talkide:problem:unauthorized","title":"Unauthorized","status":401,"code":"unauthorized","detail":"Sign in: open a sign-in link in the console, or send an API token as `Authorization: Bearer <token>`."}',
  },
  "no route, signed in": {
    status: 404,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "163",
      "content-type": "application/problem+json; charset=utf-8",
    },
    body: '{"type":"urn:talkide:problem:route_not_found","title":"No such route","status":404,"code":"route_not_found","detail":"See apps/be/README.md for the API\'s routes."}',
  },
  "bad JSON": {
    status: 400,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "148",
      "content-type": "application/problem+json; charset=utf-8",
    },
    body: '{"type":"urn:talkide:problem:invalid_json","title":"Invalid JSON","status":400,"code":"invalid_json","detail":"The request body is not valid JSON."}',
  },
  "empty JSON body": {
    status: 400,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "148",
      "content-type": "application/problem+json; charset=utf-8",
    },
    body: '{"type":"urn:talkide:problem:invalid_json","title":"Invalid JSON","status":400,"code":"invalid_json","detail":"The request body is not valid JSON."}',
  },
  "text/plain": {
    status: 415,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "209",
      "content-type": "application/problem+json; charset=utf-8",
    },
    body: '{"type":"urn:talkide:problem:unsupported_media_type","title":"Unsupported media type","status":415,"code":"unsupported_media_type","detail":"Send the request body as JSON with Content-Type: application/json."}',
  },
  "too large": {
    status: 413,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "193",
      "content-type": "application/problem+json; charset=utf-8",
    },
    body: '{"type":"urn:talkide:problem:payload_too_large","title":"Request body too large","status":413,"code":"payload_too_large","detail":"The request body is larger than the service accepts (1 MiB)."}',
  },
  "NUL in a string": {
    status: 400,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "223",
      "content-type": "application/problem+json; charset=utf-8",
    },
    body: '{"path":"name","type":"urn:talkide:problem:invalid_text","title":"Text that cannot be stored","status":400,"code":"invalid_text","detail":"name holds a character that cannot be stored (NUL or a lone surrogate); remove it."}',
  },
  "latin-1 body": {
    status: 415,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "221",
      "content-type": "application/problem+json; charset=utf-8",
    },
    body: '{"type":"urn:talkide:problem:unsupported_charset","title":"Unsupported charset","status":415,"code":"unsupported_charset","detail":"JSON bodies must be UTF-8: send Content-Type: application/json (or with charset=utf-8)."}',
  },
  "a body out of shape": {
    status: 400,
    headers: {
      ...SECURITY_HEADERS,
      "content-length": "368",
      "content-type": "application/problem+json; charset=utf-8",
    },
    body: '{"errors":[{"path":"name","message":"Invalid input: expected string, received number"},{"path":"member","message":"Invalid input: expected object, received undefined"}],"type":"urn:talkide:problem:invalid_body","title":"Invalid request body","status":400,"code":"invalid_body","detail":"The request body does not have the expected shape; see `errors` for each field."}',
  },
  "not UTF-8 in the path": {
    status: 400,
    headers: { "content-length": "247", "content-type": "application/problem+json; charset=utf-8" },
    body: '{"type":"urn:talkide:problem:invalid_encoding","title":"URL is not UTF-8","status":400,"code":"invalid_encoding","detail":"The URL holds a percent-encoded byte sequence that is not UTF-8 (or a lone surrogate); percent-encode parameters as UTF-8."}',
  },
  "an overlong path parameter": {
    status: 414,
    headers: { "content-length": "205", "content-type": "application/problem+json; charset=utf-8" },
    body: '{"type":"urn:talkide:problem:parameter_too_long","title":"URL parameter too long","status":414,"code":"parameter_too_long","detail":"A path parameter is longer than 100 characters; no route accepts that."}',
  },
};

/**
 * Status, headers and body bytes of the answers that come from the HTTP plumbing rather than a
 * route: credentials absent, malformed or unknown, no such route, bodies and URLs refused.
 */
describe("the backend's answers from its HTTP plumbing, byte for byte", () => {
  let harness: Harness;
  let anna: string;

  beforeAll(async () => {
    harness = await startHarness();
    anna = (await harness.createUser({ email: "anna@example.com", displayName: "Anna" })).token;
  });

  afterAll(async () => {
    await harness.close();
  });

  const json = { "content-type": "application/json" };
  const requests = (admin: string, user: string): Record<string, RawRequest> => ({
    health: { method: "GET", path: "/health" },
    "no credential": { method: "GET", path: "/v1/projects" },
    "empty header": { method: "GET", path: "/v1/projects", headers: { authorization: "" } },
    "scheme only": { method: "GET", path: "/v1/projects", headers: { authorization: "Bearer" } },
    "another scheme": {
      method: "GET",
      path: "/v1/projects",
      headers: { authorization: "Basic dXNlcjpwYXNz" },
    },
    "two words": {
      method: "GET",
      path: "/v1/projects",
      headers: { authorization: `Bearer ${user} more` },
    },
    "unknown token": {
      method: "GET",
      path: "/v1/projects",
      headers: { authorization: "Bearer tkbe_unknown" },
    },
    "a token out of the alphabet": {
      method: "GET",
      path: "/v1/projects",
      headers: { authorization: "Bearer tkbe_a.b" },
    },
    "a token longer than any": {
      method: "GET",
      path: "/v1/projects",
      headers: { authorization: `Bearer tkbe_${"a".repeat(300)}` },
    },
    tab: {
      method: "GET",
      path: "/v1/projects",
      headers: { authorization: `Bearer\t${user}` },
    },
    "lower case and two spaces": {
      method: "GET",
      path: "/v1/projects",
      headers: { authorization: `bearer  ${user}` },
    },
    "an unknown session cookie": {
      method: "GET",
      path: "/v1/projects",
      headers: { cookie: "talkide_session=nothing" },
    },
    "admin: no credential": { method: "POST", path: "/admin/v1/tokens", headers: json, body: "{}" },
    "admin: a user's token": {
      method: "POST",
      path: "/admin/v1/tokens",
      headers: { authorization: `Bearer ${user}`, ...json },
      body: "{}",
    },
    "admin: tab": {
      method: "POST",
      path: "/admin/v1/tokens",
      headers: { authorization: `Bearer\t${admin}`, ...json },
      body: '{"email":"nobody@example.com"}',
    },
    "admin: lower case": {
      method: "POST",
      path: "/admin/v1/tokens",
      headers: { authorization: `bearer ${admin}`, ...json },
      body: '{"email":"nobody@example.com"}',
    },
    "no route": { method: "GET", path: "/v1/nothing-here" },
    "no route, signed in": {
      method: "POST",
      path: "/nothing",
      headers: { authorization: `Bearer ${user}` },
    },
    "bad JSON": {
      method: "POST",
      path: "/v1/projects",
      headers: { authorization: `Bearer ${user}`, ...json },
      body: "{",
    },
    "empty JSON body": {
      method: "POST",
      path: "/v1/projects",
      headers: { authorization: `Bearer ${user}`, ...json },
      body: "",
    },
    "text/plain": {
      method: "POST",
      path: "/v1/projects",
      headers: { authorization: `Bearer ${user}`, "content-type": "text/plain" },
      body: "hello",
    },
    "too large": {
      method: "POST",
      path: "/v1/projects",
      headers: { authorization: `Bearer ${user}`, ...json },
      body: JSON.stringify({ name: "x".repeat(1024 * 1024) }),
    },
    "NUL in a string": {
      method: "POST",
      path: "/v1/projects",
      headers: { authorization: `Bearer ${user}`, ...json },
      body: '{"name":"a\\u0000"}',
    },
    "latin-1 body": {
      method: "POST",
      path: "/v1/projects",
      headers: {
        authorization: `Bearer ${user}`,
        "content-type": "application/json; charset=latin1",
      },
      body: '{"name":"a"}',
    },
    "a body out of shape": {
      method: "POST",
      path: "/v1/projects",
      headers: { authorization: `Bearer ${user}`, ...json },
      body: '{"name":5}',
    },
    "not UTF-8 in the path": {
      method: "GET",
      path: "/v1/projects/%FF",
      headers: { authorization: `Bearer ${user}` },
    },
    "an overlong path parameter": {
      method: "GET",
      path: `/v1/projects/${"1".repeat(101)}`,
      headers: { authorization: `Bearer ${user}` },
    },
  });

  it("answers each refusal as it always has", async () => {
    const { token: admin } = await readLocalAdmin(harness.dataDir);
    const named = requests(admin ?? "", anna);
    const answers = await rawAnswers(harness.url, Object.values(named));
    const byName = Object.fromEntries(Object.keys(named).map((name, i) => [name, answers[i]]));
    expect(byName).toEqual(EXPECTED);
  });
});
