/**
 * Imported first by main.tsx, for its side effect: the first snapshot is asked for
 * before React and the screens evaluate, so the answer comes while they do. Nothing
 * else imports this (a test rendering `App` asks for itself).
 */
import { askFirstSnapshot } from "./firstSnapshot";

void askFirstSnapshot();
