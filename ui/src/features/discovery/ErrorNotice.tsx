/**
 * A failed backend call, shown with the backend's error kind and message and a way to retry it
 * (or dismiss it, for failures that leave the pane usable).
 */
import type { IpcError } from "../../lib/ipc";

export interface ErrorNoticeProps {
  title: string;
  error: IpcError;
  onRetry?: () => void;
  onDismiss?: () => void;
  testId?: string;
}

export function ErrorNotice({ title, error, onRetry, onDismiss, testId }: ErrorNoticeProps) {
  return (
    <div className="status status-error dv-error" role="alert" data-testid={testId}>
      <p>
        <strong>{title}</strong> <code className="kind">{error.kind}</code>
      </p>
      <p className="dv-error-message">{error.message}</p>
      {(onRetry !== undefined || onDismiss !== undefined) && (
        <p className="dv-error-actions">
          {onRetry && (
            <button type="button" className="button dv-small" onClick={onRetry}>
              Retry
            </button>
          )}
          {onDismiss && (
            <button type="button" className="button dv-small" onClick={onDismiss}>
              Dismiss
            </button>
          )}
        </p>
      )}
    </div>
  );
}
