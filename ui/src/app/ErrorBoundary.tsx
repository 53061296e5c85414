import { Component, type ErrorInfo, type ReactNode } from "react";

type State = { error: Error | null; componentStack: string; copied: boolean };

/** What a bug report needs: the error, where in the UI it happened, and the build. */
export function crashDetails(error: Error, componentStack: string): string {
  return [
    `Flightdeck UI error: ${error.name}: ${error.message}`,
    `When: ${new Date().toISOString()}`,
    `Where: ${window.location.href}`,
    `Agent: ${navigator.userAgent}`,
    "",
    "Stack:",
    error.stack ?? "(none)",
    "",
    "Components:",
    componentStack.trim() || "(none)",
  ].join("\n");
}

/**
 * A crash anywhere below shows a recovery screen instead of a blank window. Nothing is
 * lost by reloading: every edit was saved to the workspace when it was made.
 */
export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { error: null, componentStack: "", copied: false };

  static getDerivedStateFromError(error: Error): Partial<State> {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    this.setState({ componentStack: info.componentStack ?? "" });
    console.error("Flightdeck UI crashed", error, info.componentStack);
  }

  private copy = async (): Promise<void> => {
    const { error, componentStack } = this.state;
    if (!error) return;
    try {
      await navigator.clipboard.writeText(crashDetails(error, componentStack));
      this.setState({ copied: true });
    } catch {
      this.setState({ copied: false });
    }
  };

  override render(): ReactNode {
    const { error, componentStack, copied } = this.state;
    if (!error) return this.props.children;
    return (
      <main className="boot crash" role="alert" aria-label="Something went wrong">
        <h1>Something went wrong in this window</h1>
        <p>
          Your work is safe: every edit was saved to your workspace when you made it, and pending changes are still waiting to be posted. Reload the window to carry on.
        </p>
        <div className="row">
          <button type="button" className="primary" data-action="reload" onClick={() => window.location.reload()}>
            Reload
          </button>
          <button type="button" data-action="copy-details" onClick={() => void this.copy()}>
            {copied ? "Copied" : "Copy details"}
          </button>
        </div>
        <details>
          <summary>Details</summary>
          <pre className="crash-details" data-crash-details>
            {crashDetails(error, componentStack)}
          </pre>
        </details>
      </main>
    );
  }
}
