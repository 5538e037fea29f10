// A generated OpenAPI document of any size, for the benches and the tests that need a large import.

/** An OpenAPI 3.0 document with `operations` operations (half GET with parameters, half POST with a $ref body). */
export function generatedDocument(operations: number): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < operations / 2; i++) {
    paths[`/resources${i}/{id}`] = {
      get: {
        operationId: `getResource${i}`,
        summary: `Read resource ${i}`,
        tags: [`group${i % 20}`],
        parameters: [
          { name: "id", in: "path", required: true, description: "Resource id", schema: { type: "string" } },
          { name: "expand", in: "query", schema: { type: "array", items: { type: "string", enum: ["owner", "tags"] } } },
          { name: "X-Trace", in: "header", schema: { type: "string" } },
        ],
        responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Resource" } } } } },
      },
      post: {
        operationId: `updateResource${i}`,
        summary: `Update resource ${i}`,
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/ResourceInput" } } } },
        responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Resource" } } } } },
      },
    };
  }
  return {
    openapi: "3.0.3",
    info: { title: "Generated", version: "1" },
    servers: [{ url: "https://api.example.com" }],
    paths,
    components: {
      schemas: {
        ResourceInput: {
          type: "object",
          required: ["name"],
          properties: { name: { type: "string" }, note: { type: "string", nullable: true }, owner: { $ref: "#/components/schemas/Owner" } },
        },
        Resource: {
          allOf: [
            { $ref: "#/components/schemas/ResourceInput" },
            {
              type: "object",
              properties: {
                id: { type: "string", readOnly: true },
                children: { type: "array", items: { $ref: "#/components/schemas/Resource" } },
              },
            },
          ],
        },
        Owner: { type: "object", properties: { id: { type: "integer" }, email: { type: "string", format: "email" } } },
      },
    },
  };
}
