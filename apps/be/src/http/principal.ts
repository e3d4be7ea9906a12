/** How a request proved who it is: an API token (scripts, curl) or a browser session (cookie). */
export type Principal =
  | { readonly kind: "token"; readonly tokenId: string }
  | { readonly kind: "session"; readonly sessionId: string };
