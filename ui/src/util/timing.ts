/**
 * Performance marks for scripts/bench-ui.sh, which reads them to time a start or a
 * repaint and split it into parts. Only the latest of each name is kept, so the page's
 * mark buffer stays small however long the app runs.
 */
export function mark(name: string): void {
  if (typeof performance === "undefined" || typeof performance.mark !== "function") return;
  performance.clearMarks(name);
  performance.mark(name);
}

/**
 * Calls `cb` once the frame that shows the current DOM has been painted: the
 * animation-frame callback runs just before that frame's paint, and a task queued from
 * it runs after the paint.
 */
export const afterNextPaint = (cb: () => void): (() => void) => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (typeof requestAnimationFrame === "function") {
    const id = requestAnimationFrame(() => {
      timer = setTimeout(cb, 0);
    });
    return () => {
      cancelAnimationFrame(id);
      if (timer !== undefined) clearTimeout(timer);
    };
  }
  timer = setTimeout(cb, 16);
  return () => clearTimeout(timer);
};
