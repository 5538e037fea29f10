import { parse as parseYaml } from "yaml";
import { isJsonObject } from "../../json/canonical";
import { jsonTextDepthExceeds, MAX_DOCUMENT_DEPTH, MAX_YAML_DEPTH_BOUND, valueDepthExceeds, yamlDepthBoundExceeds } from "../../json/depth";
import { AddressNotAllowed, OutboundGuard } from "../../net";
import { OpenApiDocumentError, OpenApiDocumentTooDeep, OpenApiFetchError } from "./errors";
import { readLimited, ResponseTooLarge } from "./read-limited";

/** Where a document comes from: a URL to fetch, text (an uploaded file or pasted JSON/YAML), or an already parsed object. */
export type OpenApiInput = { url: string } | { text: string; filename?: string } | { document: Record<string, unknown> };

export interface LoadOptions {
  /** How the console reaches other machines; without one, only public addresses. */
  outbound?: OutboundGuard;
  /** Default 15 s. */
  fetchTimeoutMs?: number;
  /** Default 10 MB. */
  maxDocumentBytes?: number;
}

let strictGuard: OutboundGuard | undefined;

/** The guard of a caller that gives none: public addresses only. */
export function outboundOf(options: { outbound?: OutboundGuard }): OutboundGuard {
  return options.outbound ?? (strictGuard ??= new OutboundGuard());
}

export interface LoadedDocument {
  document: Record<string, unknown>;
  /** The URL, "file:<name>" or "pasted". */
  location: string;
  /** The URL the document came from, to resolve relative server URLs against. */
  url?: string;
}

const MAX_REDIRECTS = 5;

/**
 * Read and parse a document. Throws OpenApiFetchError (URL), OpenApiDocumentError (not JSON/YAML,
 * not OpenAPI 3.0/3.1) or OpenApiDocumentTooDeep (nested past MAX_DOCUMENT_DEPTH, or past the YAML
 * bound, found before it is parsed or copied).
 */
export async function loadOpenApiDocument(input: OpenApiInput, options: LoadOptions = {}): Promise<LoadedDocument> {
  return parseDocumentSource(await readDocumentSource(input, options));
}

/** A document as read, before it is parsed: its text (or the object handed in parsed) and where it came from. */
export type DocumentSource = { text: string; location: string; url?: string } | { document: Record<string, unknown>; location: string };

/**
 * The I/O half of loading: fetch a URL through the outbound guard, or take the text or object as
 * given, within the size bound; no parsing. An object handed in parsed is measured for depth here,
 * before anything recursive (structured clone included) touches it. Throws OpenApiFetchError,
 * OpenApiDocumentError (too large) or OpenApiDocumentTooDeep.
 */
export async function readDocumentSource(input: OpenApiInput, options: LoadOptions = {}): Promise<DocumentSource> {
  const maxBytes = options.maxDocumentBytes ?? 10 * 1024 * 1024;
  if ("document" in input) {
    if (valueDepthExceeds(input.document, MAX_DOCUMENT_DEPTH)) throw tooDeep("document");
    return { document: input.document, location: "pasted" };
  }
  if ("text" in input) {
    if (Buffer.byteLength(input.text) > maxBytes) throw new OpenApiDocumentError(`The document is larger than ${maxBytes} bytes`);
    return { text: input.text, location: input.filename ? `file:${input.filename}` : "pasted" };
  }
  const { text, url } = await fetchText(input.url, options, maxBytes);
  return { text, location: input.url, url };
}

/**
 * The CPU half of loading (JSON or YAML parsing, the depth and version checks): synchronous and
 * pure, so that it can run on a worker thread. Throws OpenApiDocumentError or OpenApiDocumentTooDeep.
 */
export function parseDocumentSource(source: DocumentSource): LoadedDocument {
  if ("document" in source) {
    // structuredClone recurses: readDocumentSource measured the object's depth first.
    return { document: checkVersion(structuredClone(source.document)), location: source.location };
  }
  return { document: checkVersion(parseText(source.text)), location: source.location, ...(source.url && { url: source.url }) };
}

async function fetchText(url: string, options: LoadOptions, maxBytes: number): Promise<{ text: string; url: string }> {
  const signal = AbortSignal.timeout(options.fetchTimeoutMs ?? 15_000);
  let response: Response;
  try {
    // Each redirect hop passes the outbound guard again.
    response = await outboundOf(options).fetch(
      url,
      { signal, headers: { accept: "application/json, application/yaml, text/yaml, */*;q=0.5" } },
      { maxRedirects: MAX_REDIRECTS },
    );
  } catch (error) {
    if (error instanceof AddressNotAllowed) throw new OpenApiFetchError(`Cannot fetch the document: ${error.message}`);
    const reason = signal.aborted ? "it did not answer in time" : error instanceof Error ? error.message : String(error);
    throw new OpenApiFetchError(`Cannot fetch the document at ${url}: ${reason}`);
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel().catch(() => {});
    throw new OpenApiFetchError(`Cannot fetch the document at ${url}: more than ${MAX_REDIRECTS} redirects`);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new OpenApiFetchError(`Cannot fetch the document at ${url}: HTTP ${response.status}`);
  }
  try {
    return { text: await readLimited(response, maxBytes), url: response.url || url };
  } catch (error) {
    if (error instanceof ResponseTooLarge) throw new OpenApiFetchError(`The document at ${url} is larger than ${maxBytes} bytes`);
    throw new OpenApiFetchError(`Cannot read the document at ${url}: ${signal.aborted ? "it did not answer in time" : String(error)}`);
  }
}

function parseText(text: string): Record<string, unknown> {
  const trimmed = text.trim();
  if (!trimmed) throw new OpenApiDocumentError("The document is empty");
  let value: unknown;
  if (trimmed.startsWith("{")) {
    if (jsonTextDepthExceeds(trimmed, MAX_DOCUMENT_DEPTH)) throw tooDeep("JSON document");
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      throw new OpenApiDocumentError(`The document is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
  } else {
    // The YAML parser recurses, and on Node 20 a second overflow inside it can abort the process:
    // an upper bound of the nesting is measured on the text first.
    if (yamlDepthBoundExceeds(trimmed, MAX_YAML_DEPTH_BOUND))
      throw new OpenApiDocumentTooDeep(
        `The YAML document nests deeper than the console reads (counting indentation, about ${MAX_YAML_DEPTH_BOUND} levels)`,
      );
    try {
      value = parseYaml(trimmed, { maxAliasCount: 100 });
    } catch (error) {
      throw new OpenApiDocumentError(
        `The document is not valid YAML: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
      );
    }
  }
  if (!isJsonObject(value)) throw new OpenApiDocumentError("The document is not a JSON or YAML object");
  // YAML aliases can nest a parsed document deeper than its text does.
  if (valueDepthExceeds(value, MAX_DOCUMENT_DEPTH)) throw tooDeep("document");
  return value;
}

function tooDeep(what: string): OpenApiDocumentTooDeep {
  return new OpenApiDocumentTooDeep(`The ${what} nests arrays and objects deeper than ${MAX_DOCUMENT_DEPTH} levels`);
}

function checkVersion(document: Record<string, unknown>): Record<string, unknown> {
  const version = document.openapi;
  if (typeof version !== "string") {
    if (typeof document.swagger === "string")
      throw new OpenApiDocumentError(`Swagger ${document.swagger} documents are not supported; convert it to OpenAPI 3 first`);
    throw new OpenApiDocumentError('The document has no "openapi" version: it is not an OpenAPI document');
  }
  if (!/^3\.[01]\./.test(version)) throw new OpenApiDocumentError(`OpenAPI ${version} is not supported (3.0 and 3.1 are)`);
  if (!isJsonObject(document.paths) || Object.keys(document.paths).length === 0)
    throw new OpenApiDocumentError("The document has no paths, so no operations to import");
  return document;
}
