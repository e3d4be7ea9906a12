import { rawAnswers, type RawAnswer, type RawRequest } from "@talkide/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHub, type HubFixture } from "./test-support/hub-harness.ts";

/**
 * Recorded before the plumbing moved to service-kit: a changed answer is a change of the API.
 */
const EXPECTED: Record<string, RawAnswer> = {
  health: {
    status: 200,
    headers: {
      "content-length": "11",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"ok":true}',
  },
  "no credential": {
    status: 401,
    headers: {
      "content-length": "139",
      "content-type": "application/json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-hub"',
    },
    body: '{"error":{"code":"unauthorized","message":"Send a hub member token: Authorization: Bearer <token> (ticlawk reads it from TICLAWK_TOKEN)."}}',
  },
  "empty header": {
    status: 401,
    headers: {
      "content-length": "139",
      "content-type": "application/json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-hub"',
    },
    body: '{"error":{"code":"unauthorized","message":"Send a hub member token: Authorization: Bearer <token> (ticlawk reads it from TICLAWK_TOKEN)."}}',
  },
  "scheme only": {
    status: 401,
    headers: {
      "content-length": "139",
      "content-type": "application/json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-hub"',
    },
    body: '{"error":{"code":"unauthorized","message":"Send a hub member token: Authorization: Bearer <token> (ticlawk reads it from TICLAWK_TOKEN)."}}',
  },
  "another scheme": {
    status: 401,
    headers: {
      "content-length": "139",
      "content-type": "application/json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-hub"',
    },
    body: '{"error":{"code":"unauthorized","message":"Send a hub member token: Authorization: Bearer <token> (ticlawk reads it from TICLAWK_TOKEN)."}}',
  },
  "two words": {
    status: 401,
    headers: {
      "content-length": "139",
      "content-type": "application/json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-hub"',
    },
    body: '{"error":{"code":"unauthorized","message":"Send a hub member token: Authorization: Bearer <token> (ticlawk reads it from TICLAWK_TOKEN)."}}',
  },
  "unknown hub token": {
    status: 401,
    headers: {
      "content-length": "149",
      "content-type": "application/json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-hub", error="invalid_token"',
    },
    body: '{"error":{"code":"invalid_token","message":"This is not a valid hub member token; a person gets one with: talkide-hub member add --human <handle>."}}',
  },
  "unknown turn credential": {
    status: 401,
    headers: {
      "content-length": "149",
      "content-type": "application/json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-hub", error="invalid_token"',
    },
    body: '{"error":{"code":"invalid_token","message":"This is not a valid hub member token; a person gets one with: talkide-hub member add --human <handle>."}}',
  },
  "a token longer than any": {
    status: 401,
    headers: {
      "content-length": "149",
      "content-type": "application/json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-hub", error="invalid_token"',
    },
    body: '{"error":{"code":"invalid_token","message":"This is not a valid hub member token; a person gets one with: talkide-hub member add --human <handle>."}}',
  },
  "tab and lower case": {
    status: 400,
    headers: {
      "content-length": "121",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"invalid_query","message":"target: Invalid input: expected string, received undefined","path":"target"}}',
  },
  "admin: no credential": {
    status: 401,
    headers: {
      "content-length": "136",
      "content-type": "application/json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-hub-admin"',
    },
    body: '{"error":{"code":"unauthorized","message":"Send the hub\'s admin token: Authorization: Bearer <token> (in <hub data dir>/admin-token)."}}',
  },
  "admin: scheme only": {
    status: 401,
    headers: {
      "content-length": "136",
      "content-type": "application/json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-hub-admin"',
    },
    body: '{"error":{"code":"unauthorized","message":"Send the hub\'s admin token: Authorization: Bearer <token> (in <hub data dir>/admin-token)."}}',
  },
  "admin: a member's token": {
    status: 401,
    headers: {
      "content-length": "137",
      "content-type": "application/json; charset=utf-8",
      "www-authenticate": 'Bearer realm="talkide-hub-admin"',
    },
    body: '{"error":{"code":"invalid_token","message":"Send the hub\'s admin token: Authorization: Bearer <token> (in <hub data dir>/admin-token)."}}',
  },
  "admin: the admin token, tab and lower case": {
    status: 404,
    headers: {
      "content-length": "124",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"unknown_member","message":"No member has this handle on this hub; `ticlawk server info` lists everyone."}}',
  },
  "no route": {
    status: 404,
    headers: {
      "content-length": "94",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"not_found","message":"No such endpoint; see the hub\'s README for the API."}}',
  },
  "no route, signed in": {
    status: 404,
    headers: {
      "content-length": "94",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"not_found","message":"No such endpoint; see the hub\'s README for the API."}}',
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
      "content-length": "144",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"invalid_text","message":"emoji holds a character that cannot be stored (NUL or a lone surrogate); remove it.","path":"emoji"}}',
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
      "content-length": "126",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"invalid_body","message":"messageId: Invalid input: expected string, received undefined","path":"messageId"}}',
  },
  "a bad query": {
    status: 400,
    headers: {
      "content-length": "121",
      "content-type": "application/json; charset=utf-8",
    },
    body: '{"error":{"code":"invalid_query","message":"target: Invalid input: expected string, received undefined","path":"target"}}',
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
};

/**
 * Status, headers and body bytes of the answers that come from the HTTP plumbing rather than a
 * route: credentials absent, malformed or unknown, no such route, bodies and URLs refused.
 */
describe("the hub's answers from its HTTP plumbing, byte for byte", () => {
  let hub: HubFixture;
  let anna: string;

  beforeAll(async () => {
    hub = await startHub();
    anna = await hub.addHuman("anna", { joinGeneral: false });
  });

  afterAll(async () => {
    await hub.stop();
  });

  const json = { "content-type": "application/json" };
  const requests = (admin: string, member: string): Record<string, RawRequest> => ({
    health: { method: "GET", path: "/hub/v1/health" },
    "no credential": { method: "GET", path: "/hub/v1/me" },
    "empty header": { method: "GET", path: "/hub/v1/me", headers: { authorization: "" } },
    "scheme only": { method: "GET", path: "/hub/v1/me", headers: { authorization: "Bearer" } },
    "another scheme": {
      method: "GET",
      path: "/hub/v1/me",
      headers: { authorization: "Basic dXNlcjpwYXNz" },
    },
    "two words": {
      method: "GET",
      path: "/hub/v1/me",
      headers: { authorization: `Bearer ${member} more` },
    },
    "unknown hub token": {
      method: "GET",
      path: "/hub/v1/me",
      headers: { authorization: "Bearer thk_unknown" },
    },
    "unknown turn credential": {
      method: "GET",
      path: "/hub/v1/me",
      headers: { authorization: "Bearer tkt_00000000-0000-4000-8000-000000000000.AAAA" },
    },
    "a token longer than any": {
      method: "GET",
      path: "/hub/v1/me",
      headers: { authorization: `Bearer thk_${"a".repeat(300)}` },
    },
    // Passes authentication: the answer is the route's own refusal.
    "tab and lower case": {
      method: "GET",
      path: "/hub/v1/members",
      headers: { authorization: `bearer\t${member}` },
    },
    "admin: no credential": { method: "GET", path: "/hub/v1/admin/members" },
    "admin: scheme only": {
      method: "GET",
      path: "/hub/v1/admin/members",
      headers: { authorization: "Bearer" },
    },
    "admin: a member's token": {
      method: "GET",
      path: "/hub/v1/admin/members",
      headers: { authorization: `Bearer ${member}` },
    },
    "admin: the admin token, tab and lower case": {
      method: "POST",
      path: "/hub/v1/admin/members/nobody/tokens",
      headers: { authorization: `bearer\t${admin}` },
    },
    "no route": { method: "GET", path: "/hub/v1/nothing-here" },
    "no route, signed in": {
      method: "POST",
      path: "/nothing",
      headers: { authorization: `Bearer ${member}` },
    },
    "bad JSON": {
      method: "POST",
      path: "/hub/v1/reactions",
      headers: { authorization: `Bearer ${member}`, ...json },
      body: "{",
    },
    "empty JSON body": {
      method: "POST",
      path: "/hub/v1/reactions",
      headers: { authorization: `Bearer ${member}`, ...json },
      body: "",
    },
    "text/plain": {
      method: "POST",
      path: "/hub/v1/reactions",
      headers: { authorization: `Bearer ${member}`, "content-type": "text/plain" },
      body: "hello",
    },
    "too large": {
      method: "POST",
      path: "/hub/v1/reactions",
      headers: { authorization: `Bearer ${member}`, ...json },
      body: JSON.stringify({ emoji: "x".repeat(1024 * 1024) }),
    },
    "NUL in a string": {
      method: "POST",
      path: "/hub/v1/reactions",
      headers: { authorization: `Bearer ${member}`, ...json },
      body: '{"emoji":"a\\u0000"}',
    },
    "latin-1 body": {
      method: "POST",
      path: "/hub/v1/reactions",
      headers: {
        authorization: `Bearer ${member}`,
        "content-type": "application/json; charset=latin1",
      },
      body: '{"emoji":"a"}',
    },
    "a field out of shape": {
      method: "POST",
      path: "/hub/v1/reactions",
      headers: { authorization: `Bearer ${member}`, ...json },
      body: '{"emoji":5}',
    },
    "a bad query": {
      method: "GET",
      path: "/hub/v1/members?nothing=1",
      headers: { authorization: `Bearer ${member}` },
    },
    "not UTF-8 in the path": {
      method: "GET",
      path: "/hub/v1/attachments/%FF",
      headers: { authorization: `Bearer ${member}` },
    },
    "an overlong path parameter": {
      method: "GET",
      path: `/hub/v1/attachments/${"a".repeat(101)}`,
      headers: { authorization: `Bearer ${member}` },
    },
  });

  it("answers each refusal as it always has", async () => {
    const named = requests(hub.api.token, anna);
    const answers = await rawAnswers(hub.url, Object.values(named));
    const byName = Object.fromEntries(Object.keys(named).map((name, i) => [name, answers[i]]));
    expect(byName).toEqual(EXPECTED);
  });
});
