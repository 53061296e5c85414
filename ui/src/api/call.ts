import type { AppError, FieldError } from "./types";

/** A command's error, or one raised in the UI (the command could not be invoked). */
export type UiError = { code: AppError["code"] | "client"; message: string; fieldErrors: FieldError[] };
import { toast } from "./toast";

type CommandResult<T> = { status: "ok"; data: T } | { status: "error"; error: AppError };

export type Outcome<T> = { ok: true; data: T } | { ok: false; error: UiError };

export type CallOptions = {
  /** Receives the error's `fieldErrors` (a form shows them at its fields). */
  onFieldErrors?: (errors: FieldError[]) => void;
  /** Do not show the error message as a toast. */
  quiet?: boolean;
};

function isAppError(e: unknown): e is AppError {
  return typeof e === "object" && e !== null && "code" in e && "message" in e && Array.isArray((e as { fieldErrors?: unknown }).fieldErrors);
}

function describe(e: unknown): UiError {
  const message = e instanceof Error ? e.message : typeof e === "string" ? e : "Unexpected error";
  return { code: "client", message, fieldErrors: [] };
}

/**
 * Runs a command and unwraps its result: on error the message is shown as a toast and
 * the field errors go to `onFieldErrors`. Never throws.
 */
export async function call<T>(pending: Promise<CommandResult<T>>, options: CallOptions = {}): Promise<Outcome<T>> {
  let error: UiError;
  try {
    const result = await pending;
    if (result.status === "ok") return { ok: true, data: result.data };
    // A command Tauri could not run (its arguments did not fit) rejects with plain text,
    // not an AppError.
    error = isAppError(result.error) ? result.error : describe(result.error);
  } catch (e) {
    error = describe(e);
  }
  if (!options.quiet) toast(error.message || error.code, "error");
  if (options.onFieldErrors) options.onFieldErrors(error.fieldErrors ?? []);
  return { ok: false, error };
}

/** For commands that cannot fail (no `Result`): the value, or `undefined` if invoking failed. */
export async function plain<T>(pending: Promise<T>, options: CallOptions = {}): Promise<T | undefined> {
  try {
    return await pending;
  } catch (e) {
    const error = describe(e);
    if (!options.quiet) toast(error.message, "error");
    return undefined;
  }
}

/** Like `call`, answering the data or `undefined` when the command failed. */
export async function unwrap<T>(pending: Promise<CommandResult<T>>, options: CallOptions = {}): Promise<T | undefined> {
  const outcome = await call(pending, options);
  return outcome.ok ? outcome.data : undefined;
}

export type { CommandResult };
