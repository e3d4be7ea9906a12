import type { FastifyReply } from "fastify";
import { SESSION_COOKIE } from "../auth/browser-sessions.ts";
import type { AppDependencies } from "./context.ts";

/**
 * The browser keeps the cookie as long as browsers allow (400 days); whether it still opens
 * anything is the server's decision (the session's idle limit, signing out), so a person who
 * keeps working stays signed in and an ended session is ended everywhere at once.
 */
const COOKIE_MAX_AGE_SECONDS = 400 * 24 * 60 * 60;

/** HttpOnly (no script reads it), SameSite=Strict (no other site's request carries it). */
export function setSessionCookie(reply: FastifyReply, deps: AppDependencies, secret: string): void {
  void reply.setCookie(SESSION_COOKIE, secret, {
    path: "/",
    httpOnly: true,
    sameSite: "strict",
    secure: deps.accounts.publicUrl.startsWith("https:"),
    maxAge: COOKIE_MAX_AGE_SECONDS,
  });
}

export function clearSessionCookie(reply: FastifyReply, deps: AppDependencies): void {
  void reply.clearCookie(SESSION_COOKIE, {
    path: "/",
    httpOnly: true,
    sameSite: "strict",
    secure: deps.accounts.publicUrl.startsWith("https:"),
  });
}
