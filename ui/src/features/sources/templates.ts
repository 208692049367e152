/** File names and starting content of new HTTP tool definition files. */

/** `name.json` or `name.toml`: letters, digits, `-`, `_`, `.`; no path, no hidden file. */
export function checkFileName(name: string, existing: readonly string[]): string | null {
  const trimmed = name.trim();
  if (trimmed === "") return "Type a file name ending in .json or .toml.";
  if (!/\.(json|toml)$/.test(trimmed)) return "The name must end in .json or .toml.";
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(trimmed)) {
    return "Use letters, digits, '-', '_' and '.' only (no folders, not starting with '.').";
  }
  if (existing.includes(trimmed)) return `${trimmed} exists already.`;
  return null;
}

/** A tool id from the file name: its stem, with anything but letters, digits, - _ . dropped. */
function toolIdOf(fileName: string): string {
  const stem = fileName.replace(/\.(json|toml)$/, "").replace(/[^A-Za-z0-9._-]/g, "");
  return stem === "" ? "example" : stem;
}

/** A small valid definition: one read-only GET method. */
export function template(fileName: string): string {
  const id = toolIdOf(fileName);
  if (fileName.endsWith(".toml")) {
    return `id = "${id}"
name = "${id}"
description = "What this tool does."

[[methods]]
name = "get"
description = "Fetches one item by id."
parameters = { type = "object", required = ["id"], properties = { id = { type = "string" } } }
annotations = { read_only = true }

[methods.endpoint]
url = "https://api.example.com/items/{id}"
method = "GET"
# auth = { type = "bearer", token_env = "EXAMPLE_TOKEN" }
`;
  }
  return `${JSON.stringify(
    {
      id,
      name: id,
      description: "What this tool does.",
      methods: [
        {
          name: "get",
          description: "Fetches one item by id.",
          parameters: { type: "object", required: ["id"], properties: { id: { type: "string" } } },
          annotations: { read_only: true },
          endpoint: { url: "https://api.example.com/items/{id}", method: "GET" },
        },
      ],
    },
    null,
    2,
  )}\n`;
}
