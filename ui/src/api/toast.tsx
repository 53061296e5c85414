import { useSyncExternalStore } from "react";

export type ToastLevel = "info" | "success" | "error";
export type Toast = { id: number; level: ToastLevel; text: string };

let toasts: Toast[] = [];
let nextId = 1;
const listeners = new Set<() => void>();

function emit(): void {
  for (const l of listeners) l();
}

/** Shows a message in the toast area; errors stay longer than other messages. */
export function toast(text: string, level: ToastLevel = "info"): number {
  const id = nextId++;
  toasts = [...toasts, { id, level, text }].slice(-5);
  emit();
  const ms = level === "error" ? 12000 : 5000;
  setTimeout(() => dismissToast(id), ms);
  return id;
}

export function dismissToast(id: number): void {
  const next = toasts.filter((t) => t.id !== id);
  if (next.length !== toasts.length) {
    toasts = next;
    emit();
  }
}

export function clearToasts(): void {
  toasts = [];
  emit();
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

function snapshot(): Toast[] {
  return toasts;
}

export function Toaster() {
  const list = useSyncExternalStore(subscribe, snapshot, snapshot);
  return (
    <div className="toasts" role="status" aria-live="polite">
      {list.map((t) => (
        <div key={t.id} className={`toast toast-${t.level}`} data-toast={t.level} role={t.level === "error" ? "alert" : undefined}>
          <span className="toast-text">{t.text}</span>
          <button type="button" className="icon-button" aria-label="Dismiss message" onClick={() => dismissToast(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
