// Option lists for enum selects. Typed against the bindings, so a value the Rust side
// does not know fails the type check.
import type { AdOrder, AudienceSegment, Campaign, CampaignFlight, Creative, SiteList } from "../api/types";

type Of<T> = NonNullable<T>;

export const TIME_PERIODS: Of<Campaign["frequencyCapTimePeriod"]>[] = ["MINUTE", "HOUR", "DAY"];
export const PACING_MODES: Of<Campaign["pacingMode"]>[] = ["ASAP", "SPEND_EVENLY"];
export const OBJECTIVES: Of<Campaign["objective"]>[] = ["AWARENESS", "ENGAGEMENT", "CONVERSION"];
export const BUDGET_TYPES: Of<CampaignFlight["budgetType"]>[] = ["AUTO_BUDGET", "FIXED_BUDGET"];
export const OPTIMIZATION_GOALS: Of<AdOrder["optimizationGoal"]>[] = ["CPM", "CPC", "CPA", "VIDEO_COMPLETION_RATE"];
export const GOAL_MODES: Of<AdOrder["goalMode"]>[] = ["PERFORMANCE", "SPEND"];
export const CHANNELS_V2 = ["Display", "Video", "Native", "Audio", "DOOH", "CTV", "LTV"] as const;
export const VIDEO_TYPES: Of<Of<Creative["type"]>["videoType"]>[] = ["FLV", "MP4", "WMV", "WEBM", "JS"];
export const CREATIVE_STATUSES: Of<Creative["status"]>[] = ["INCOMPLETE", "PENDING", "APPROVED", "DISABLED", "VIOLATION"];
export const STRATEGIES: Of<SiteList["strategy"]>[] = ["precise", "broad"];
export const RULE_TYPES: Of<Of<SiteList["rules"]>[number]["type"]>[] = ["web", "app"];
export const DATA_TYPES: Of<AudienceSegment["dataType"]>[] = ["phonenumber_sha256", "email_sha256", "address_sha256", "ip", "cookie", "mobile_id"];
export const SEGMENT_STATUSES: Of<AudienceSegment["status"]>[] = ["INACTIVE", "ACTIVE", "ARCHIVED"];

export const LABELS: Record<string, string> = {
  MINUTE: "Minute",
  HOUR: "Hour",
  DAY: "Day",
  ASAP: "As soon as possible",
  SPEND_EVENLY: "Spend evenly",
  AWARENESS: "Awareness",
  ENGAGEMENT: "Engagement",
  CONVERSION: "Conversion",
  AUTO_BUDGET: "Auto budget",
  FIXED_BUDGET: "Fixed budget",
  CPM: "CPM",
  CPC: "CPC",
  CPA: "CPA",
  VIDEO_COMPLETION_RATE: "Video completion rate",
  PERFORMANCE: "Performance",
  SPEND: "Spend",
  precise: "Precise",
  broad: "Broad",
  web: "Web domain",
  app: "App",
  phonenumber_sha256: "Phone number (SHA-256)",
  email_sha256: "E-mail (SHA-256)",
  address_sha256: "Postal address (SHA-256)",
  ip: "IPv4 address",
  cookie: "Cookie id",
  mobile_id: "Mobile id",
};

/** The label of an enum value; a value the pick lists do not know shows as it is. */
export function labelOf(v: string | null | undefined): string | null {
  if (v === null || v === undefined || v === "") return null;
  return LABELS[v] ?? v;
}

/** Site-list `typeId` values used by the service's examples. */
export const SITE_LIST_ID_BASED = 5;
export const SITE_LIST_RULE_BASED = 1;
