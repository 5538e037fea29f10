import http from "node:http";

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP request with full control over the headers (Host included) and the body: a string is
 * sent with content-length, an array of strings is sent chunked, one write per element.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | string[] },
): Promise<RawResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers };
    if (typeof options.body === "string") headers["content-length"] = String(Buffer.byteLength(options.body));
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? "POST",
        headers,
        setHost: !Object.keys(headers).some((h) => h.toLowerCase() === "host"),
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on("error", reject);
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => {
      // The server may answer 413 and close while we still write: the answer is what counts.
      if (error.code !== "EPIPE" && error.code !== "ECONNRESET") reject(error);
    });
    if (Array.isArray(options.body)) for (const part of options.body) req.write(part);
    else if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}
