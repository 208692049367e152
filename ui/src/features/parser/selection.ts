/** What is selected across the Parser pane's views: a request (`r{i}`) or diagnostic (`d{i}`). */
export interface Selection {
  id: string;
  /** Where it was picked: the lists scroll to marks picked in the text, and the other way round. */
  source: "list" | "text";
}
