import { rawAnswers, type RawAnswer, type RawRequest } from "@talkide/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  makeTempDir,
  removeDir,
  startTestDaemon,
  type TestDaemon,
} from "../test-support/harness.ts";

/**
 * Recorded before the plumbing moved to service-kit: a changed answer is a change of the API.
 */
const EXPECTED: Record<string, RawAnswer> = {
  health: {
    status: 200,
    headers: {
      "content-length": "52",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"ok":true,"hostId":"test-host","database":"pglite"}',
  },
  "no credential": {
    status: 401,
    headers: {
      "content-length": "97",
      "content-type": "application/json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-daemon"',
    },
    body: '{"error":{"code":"unauthorized","message":"Send a bearer token: Authorization: Bearer <token>."}}',
  },
  "empty header": {
    status: 401,
    headers: {
      "content-length": "97",
      "content-type": "application/json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-daemon"',
    },
    body: '{"error":{"code":"unauthorized","message":"Send a bearer token: Authorization: Bearer <token>."}}',
  },
  "scheme only": {
    status: 401,
    headers: {
      "content-length": "97",
      "content-type": "application/json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-daemon", error="invalid_request"',
    },
    body: '{"error":{"code":"unauthorized","message":"The Authorization header must read: Bearer <token>."}}',
  },
  "another scheme": {
    status: 401,
    headers: {
      "content-length": "97",
      "content-type": "application/json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-daemon", error="invalid_request"',
    },
    body: '{"error":{"code":"unauthorized","message":"The Authorization header must read: Bearer <token>."}}',
  },
  "two words": {
    status: 401,
    headers: {
      "content-length": "97",
      "content-type": "application/json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-daemon", error="invalid_request"',
    },
    body: '{"error":{"code":"unauthorized","message":"The Authorization header must read: Bearer <token>."}}',
  },
  "unknown token": {
    status: 401,
    headers: {
      "content-length": "125",
      "content-type": "application/json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-daemon", error="invalid_token"',
    },
    body: '{"error":{"code":"invalid_token","message":"This token is unknown or revoked; create one with talkide-daemon token create."}}',
  },
  "tab and lower case": {
    status: 200,
    headers: {
      "content-length": "13",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"agents":[]}',
  },
  "intake token on an admin route": {
    status: 403,
    headers: {
      "content-length": "85",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"forbidden","message":"A token with scope intake may not do this."}}',
  },
  "no route": {
    status: 404,
    headers: {
      "content-length": "97",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"not_found","message":"No such endpoint; see the daemon\'s README for the API."}}',
  },
  "no route, signed in": {
    status: 404,
    headers: {
      "content-length": "97",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"not_found","message":"No such endpoint; see the daemon\'s README for the API."}}',
  },
  "bad JSON": {
    status: 400,
    headers: {
      "content-length": "81",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"invalid_json","message":"The request body is not valid JSON."}}',
  },
  "empty JSON body": {
    status: 400,
    headers: {
      "content-length": "81",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"invalid_json","message":"The request body is not valid JSON."}}',
  },
  "text/plain": {
    status: 415,
    headers: {
      "content-length": "90",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"unsupported_media_type","message":"Send the body as application/json."}}',
  },
  "too large": {
    status: 413,
    headers: {
      "content-length": "90",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"payload_too_large","message":"The request body exceeds 1048576 bytes."}}',
  },
  "NUL in a string": {
    status: 400,
    headers: {
      "content-length": "142",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"invalid_text","message":"name holds a character that cannot be stored (NUL or a lone surrogate); remove it.","path":"name"}}',
  },
  "latin-1 body": {
    status: 415,
    headers: {
      "content-length": "140",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"unsupported_charset","message":"JSON bodies must be UTF-8: send Content-Type: application/json (or with charset=utf-8)."}}',
  },
  "a field out of shape": {
    status: 400,
    headers: {
      "content-length": "115",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"invalid_body","message":"name: Too small: expected string to have >=1 characters","path":"name"}}',
  },
  "a bad query": {
    status: 400,
    headers: {
      "content-length": "106",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"invalid_query","message":"limit: must be a whole number from 1 to 1000","path":"limit"}}',
  },
  "not UTF-8 in the path": {
    status: 400,
    headers: {
      "content-length": "172",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"invalid_encoding","message":"The URL holds a percent-encoded byte sequence that is not UTF-8 (or a lone surrogate); percent-encode parameters as UTF-8."}}',
  },
  "an overlong path parameter": {
    status: 414,
    headers: {
      "content-length": "122",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"parameter_too_long","message":"A path parameter is longer than 100 characters; no route accepts that."}}',
  },
  "a refused delivery": {
    status: 400,
    headers: {
      "content-length": "90",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"missing_field","message":"created_at: is required","path":"created_at"}}',
  },
};

/**
 * Status, headers and body bytes of the answers that come from the HTTP plumbing rather than a
 * route: credentials absent, malformed or unknown, no such route, bodies and URLs refused.
 */
describe("the daemon's answers from its HTTP plumbing, byte for byte", () => {
  let dir: string;
  let td: TestDaemon;
  let intake: string;

  beforeAll(async () => {
    dir = await makeTempDir();
    td = await startTestDaemon({ dataDir: dir });
    const created = await td.api.call<{ token: string }>("POST", "/v1/tokens", {
      name: "message-service",
      scope: "intake",
    });
    intake = created.body.token;
  });

  afterAll(async () => {
    await td.stop();
    await removeDir(dir);
  });

  const json = { "content-type": "application/json" };
  const requests = (admin: string, intakeToken: string): Record<string, RawRequest> => ({
    health: { method: "GET", path: "/v1/health" },
    "no credential": { method: "GET", path: "/v1/agents" },
    "empty header": { method: "GET", path: "/v1/agents", headers: { authorization: "" } },
    "scheme only": { method: "GET", path: "/v1/agents", headers: { authorization: "Bearer" } },
    "another scheme": {
      method: "GET",
      path: "/v1/agents",
      headers: { authorization: "Basic dXNlcjpwYXNz" },
    },
    "two words": {
      method: "GET",
      path: "/v1/agents",
      headers: { authorization: `Bearer ${admin} more` },
    },
    "unknown token": {
      method: "GET",
      path: "/v1/agents",
      headers: { authorization: "Bearer tkd_unknown" },
    },
    "tab and lower case": {
      method: "GET",
      path: "/v1/agents",
      headers: { authorization: `bearer\t${admin}` },
    },
    "intake token on an admin route": {
      method: "GET",
      path: "/v1/agents",
      headers: { authorization: `Bearer ${intakeToken}` },
    },
    "no route": { method: "GET", path: "/v1/nothing-here" },
    "no route, signed in": {
      method: "POST",
      path: "/nothing",
      headers: { authorization: `Bearer ${admin}` },
    },
    "bad JSON": {
      method: "POST",
      path: "/v1/tokens",
      headers: { authorization: `Bearer ${admin}`, ...json },
      body: "{",
    },
    "empty JSON body": {
      method: "POST",
      path: "/v1/tokens",
      headers: { authorization: `Bearer ${admin}`, ...json },
      body: "",
    },
    "text/plain": {
      method: "POST",
      path: "/v1/tokens",
      headers: { authorization: `Bearer ${admin}`, "content-type": "text/plain" },
      body: "hello",
    },
    "too large": {
      method: "POST",
      path: "/v1/tokens",
      headers: { authorization: `Bearer ${admin}`, ...json },
      body: JSON.stringify({ name: "x".repeat(1024 * 1024) }),
    },
    "NUL in a string": {
      method: "POST",
      path: "/v1/tokens",
      headers: { authorization: `Bearer ${admin}`, ...json },
      body: '{"name":"a\\u0000"}',
    },
    "latin-1 body": {
      method: "POST",
      path: "/v1/tokens",
      headers: {
        authorization: `Bearer ${admin}`,
        "content-type": "application/json; charset=latin1",
      },
      body: '{"name":"a"}',
    },
    "a field out of shape": {
      method: "POST",
      path: "/v1/tokens",
      headers: { authorization: `Bearer ${admin}`, ...json },
      body: '{"name":""}',
    },
    "a bad query": {
      method: "GET",
      path: "/v1/deliveries?limit=many",
      headers: { authorization: `Bearer ${admin}` },
    },
    "not UTF-8 in the path": {
      method: "GET",
      path: "/v1/agents/%FF",
      headers: { authorization: `Bearer ${admin}` },
    },
    "an overlong path parameter": {
      method: "GET",
      path: `/v1/agents/${"a".repeat(101)}`,
      headers: { authorization: `Bearer ${admin}` },
    },
    "a refused delivery": {
      method: "POST",
      path: "/v1/agents/ghost/deliveries",
      headers: { authorization: `Bearer ${intakeToken}`, ...json },
      body: "{}",
    },
  });

  it("answers each refusal as it always has", async () => {
    const named = requests(td.api.token, intake);
    const answers = await rawAnswers(td.daemon.url, Object.values(named));
    const byName = Object.fromEntries(Object.keys(named).map((name, i) => [name, answers[i]]));
    expect(byName).toEqual(EXPECTED);
  });
});
