/** Each tool listing the agent received, and what changed from one to the next (or since the server's previous session). */
import { formatDuration } from "../../lib/format";
import type { Listing, ToolsChange } from "./sessionModel";

function Names({ label, names, tone }: { label: string; names: string[]; tone: string }) {
  if (names.length === 0) return null;
  return (
    <li className={tone}>
      {label}: {names.map((name, i) => (
        <span key={name}>
          {i > 0 && ", "}
          <code>{name}</code>
        </span>
      ))}
    </li>
  );
}

function Change({ change }: { change: ToolsChange }) {
  const nothing = change.added.length + change.removed.length + change.changed.length === 0;
  return (
    <div className="lv-change" data-testid="tools-changed">
      <span className="badge lv-badge-warn">{nothing ? "same tools" : "tools changed"}</span>{" "}
      <span className="muted lv-small">
        {change.sinceSession === null ? "since the listing before" : <>since the previous session <code>{change.sinceSession}</code></>}
      </span>
      {!nothing && (
        <ul className="lv-change-list">
          <Names label="added" names={change.added} tone="lv-ok-text" />
          <Names label="removed" names={change.removed} tone="lv-error-text" />
          <Names label="changed" names={change.changed} tone="lv-warn-text" />
        </ul>
      )}
    </div>
  );
}

export function ToolListings({ listings }: { listings: Listing[] }) {
  if (listings.length === 0) return <p className="muted lv-small">No tools/list answered yet.</p>;
  return (
    <ol className="lv-listings" data-testid="tool-listings">
      {listings.map((listing) => {
        const change = listing.change;
        return (
          <li key={listing.seq} className="lv-listing">
            <span className="muted lv-small">
              +{formatDuration(listing.ms)} · {listing.names.length} {listing.names.length === 1 ? "tool" : "tools"}
              {listing.pages > 1 && ` in ${String(listing.pages)} pages`}
            </span>
            <div className="lv-names">
              {listing.names.map((name) => (
                <code key={name} className="lv-name">
                  {name}
                </code>
              ))}
            </div>
            {change && <Change change={change} />}
          </li>
        );
      })}
    </ol>
  );
}
