/** Where the document comes from. */
type Origin = "url" | "file" | "paste";
export type AuthKind = "none" | "bearer" | "header" | "query";

/** The state of the OpenAPI import form; `requestBody` makes the preview and import bodies from it. */
export interface Form {
  origin: Origin;
  url: string;
  file?: { name: string; text: string };
  pasted: string;
  name: string;
  prefix: string;
  baseUrl: string;
  tags: string;
  paths: string;
  operationIds: string;
  authKind: AuthKind;
  authName: string;
  secret: string;
  /** What this source may reach although private (an admin's allowance), comma separated. */
  allow: string;
}

export const EMPTY: Form = {
  origin: "url",
  url: "",
  pasted: "",
  name: "",
  prefix: "",
  baseUrl: "",
  tags: "",
  paths: "",
  operationIds: "",
  authKind: "none",
  authName: "",
  secret: "",
  allow: "",
};

const list = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/** The body of a preview or an import; the secret goes only with the import. */
export function requestBody(form: Form, withSecret: boolean) {
  const operations = { tags: list(form.tags), paths: list(form.paths), operationIds: list(form.operationIds) };
  const filter = Object.fromEntries(Object.entries(operations).filter(([, v]) => v.length));
  const auth =
    form.authKind === "none"
      ? undefined
      : {
          kind: form.authKind,
          ...(form.authKind !== "bearer" && { name: form.authName.trim() }),
          ...(withSecret && { secret: form.secret }),
        };
  const document =
    form.origin === "url"
      ? { url: form.url.trim() }
      : form.origin === "file"
        ? { text: form.file?.text ?? "", filename: form.file?.name }
        : { text: form.pasted };
  return {
    ...document,
    ...(withSecret && form.name.trim() && { name: form.name.trim() }),
    options: {
      ...(Object.keys(filter).length && { operations: filter }),
      ...(form.prefix.trim() && { prefix: form.prefix.trim() }),
      ...(form.baseUrl.trim() && { baseUrl: form.baseUrl.trim() }),
      ...(auth && { auth }),
      ...(list(form.allow).length && { allow: list(form.allow) }),
    },
  };
}
