/** The `http://` URL of a host and port; an IPv6 literal goes in brackets. */
export function httpUrl(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}
