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
