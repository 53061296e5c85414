//! Every field of every wire type set to a distinct value: what wire_names.rs encodes
//! and decodes, and what the fuzz tests mutate.

use flightdeck_model::{
    AdOrder, AdOrderAudience, AudioAsset, BudgetType, Campaign, CampaignFlight, Creative,
    CreativeStatus, CreativeSubtype, CreativeType, DisplayAsset, DoohAsset, Extra, FlightStatus,
    FrequencyCap, GoalMode, IncludeExclude, MediaType, NativeAsset, Objective, OptimizationGoal,
    PacingMode, Size, TimePeriod, TypeObject, VideoAsset, VideoType,
};
use serde_json::json;

pub fn s(v: &str) -> Option<String> {
    Some(v.to_owned())
}

pub fn include_exclude(base: i64) -> IncludeExclude {
    IncludeExclude {
        include: Some(vec![base, base + 1]),
        exclude: Some(vec![base + 2]),
        extra: Extra::new(),
    }
}

/// Every field set; `null` puts `null` in every `Nullable` field instead of a value.
pub fn ad_order(null: bool) -> AdOrder {
    let n = |v| if null { Some(None) } else { Some(Some(v)) };
    AdOrder {
        id: Some(1),
        name: s("order"),
        campaign_id: Some(2),
        optimization_goal: Some(OptimizationGoal::Cpc),
        start_date: Some(3),
        end_date: Some(4),
        lifetime_budget: Some(5.5),
        frequency_cap: if null {
            Some(None)
        } else {
            Some(Some(FrequencyCap {
                limit: Some(6),
                duration: Some(7),
                time_period: Some(TimePeriod::Hour),
                extra: Extra::new(),
            }))
        },
        channels_v2: if null {
            Some(None)
        } else {
            Some(Some(vec!["Display".to_owned()]))
        },
        max_bid: Some(8.5),
        audience_weights_enabled: Some(true),
        goal_mode: Some(GoalMode::Spend),
        hourly_pacing_mode: Some(PacingMode::SpendEvenly),
        hourly_frontload: n(9.5),
        io_number: s("io-in"),
        io_number_out: s("io-out"),
        external_ad_order_id: s("external"),
        cost_optimization_enabled: Some(false),
        audiences: Some(vec![AdOrderAudience {
            id: Some(10),
            name: s("audience"),
            weight: Some(11),
            pmp_deals: if null {
                Some(None)
            } else {
                Some(Some(vec![12, 13]))
            },
            exchanges: Some(include_exclude(14)),
            site_lists: Some(include_exclude(20)),
            extra: Extra::new(),
        }]),
        daily_budget: n(10.25),
        lifetime_impression_budget: if null { Some(None) } else { Some(Some(15)) },
        daily_impression_budget: if null { Some(None) } else { Some(Some(16)) },
        cpa_goal: n(11.25),
        ctr_goal: n(0.125),
        vcr_goal: n(0.75),
        min_bid_multiplier: n(0.5),
        max_bid_multiplier: n(2.5),
        channels: Some(vec!["CTV".to_owned()]),
        day_parts: Some(vec![json!({"day": 1})]),
        extra: Extra::new(),
    }
}

pub fn flight(null: bool) -> CampaignFlight {
    CampaignFlight {
        id: Some(1),
        status: if null {
            Some(None)
        } else {
            Some(Some(FlightStatus::Pending))
        },
        budget_type: Some(BudgetType::FixedBudget),
        daily_budget: if null { Some(None) } else { Some(Some(2.5)) },
        daily_frontload: Some(3.5),
        max_budget: Some(4.5),
        remaining_budget: if null { Some(None) } else { Some(Some(5.5)) },
        daily_imp_cap: if null { Some(None) } else { Some(Some(6)) },
        lifetime_imp_cap: if null { Some(None) } else { Some(Some(7)) },
        start_date: Some(8),
        end_date: Some(9),
        extra: Extra::new(),
    }
}

pub fn campaign(null: bool) -> Campaign {
    let f = |v| if null { Some(None) } else { Some(Some(v)) };
    let i = |v| if null { Some(None) } else { Some(Some(v)) };
    Campaign {
        id: Some(1),
        advertiser_id: Some(2),
        name: s("campaign"),
        domain: s("example.com"),
        max_budget: Some(3.5),
        daily_budget: f(4.5),
        daily_frequency_cap: i(5),
        frequency_cap_duration: i(6),
        frequency_cap_time_period: if null {
            Some(None)
        } else {
            Some(Some(TimePeriod::Minute))
        },
        start_date: Some(7),
        end_date: Some(8),
        iab_category: Some(vec!["IAB1".to_owned()]),
        markup_rate: f(0.25),
        lifetime_impression_cap: i(9),
        daily_impression_cap: i(10),
        lifetime_click_cap: i(11),
        daily_click_cap: i(12),
        io_number: s("io"),
        external_campaign_id: s("external"),
        min_bid_multiplier: f(0.5),
        max_bid_multiplier: f(1.5),
        flights: Some(vec![flight(null)]),
        auto_advertising: Some(true),
        pacing_mode: Some(PacingMode::Asap),
        intraday_frontload_pct: Some(13.5),
        objective: Some(Objective::Engagement),
        channel_group: s("MOBILE_COMPUTER_CTV"),
        has_flights: Some(true),
        extra: Extra::new(),
    }
}

pub fn creative(null: bool) -> Creative {
    let urls = |p: &str| Some(vec![format!("https://example.com/{p}.mp4")]);
    Creative {
        id: Some(1),
        name: s("creative"),
        creative_type: Some(CreativeType::VIDEO),
        creative_subtype: Some(CreativeSubtype::VASTURL),
        type_: Some(TypeObject {
            media_type: Some(MediaType::VAST),
            id: Some(2),
            vendor_id: Some(3),
            video_type: if null {
                Some(None)
            } else {
                Some(Some(VideoType::MP4))
            },
            extra: Extra::new(),
        }),
        advertiser_id: Some(4),
        campaign_id: Some(5),
        size: Some(Size {
            width: Some(300),
            height: Some(250),
        }),
        landing_page_url: s("https://example.com/landing"),
        html_asset: s("<b>html</b>"),
        image_url: s("https://example.com/image.png"),
        video: Some(VideoAsset {
            vast_url: s("https://example.com/video.xml"),
            vast_xml: s("<VAST video/>"),
            media_urls: urls("video"),
            extra: Extra::new(),
        }),
        audio: Some(AudioAsset {
            vast_url: s("https://example.com/audio.xml"),
            vast_xml: s("<VAST audio/>"),
            media_urls: urls("audio"),
            daast: Some(json!({"version": 1})),
            extra: Extra::new(),
        }),
        native: Some(NativeAsset {
            headline: s("headline"),
            caption: s("caption"),
            sponsored_by: s("sponsor"),
            image_url: s("https://example.com/native.png"),
            image_icon: s("https://example.com/icon.png"),
            vast_url: s("https://example.com/native.xml"),
            vast_xml: s("<VAST native/>"),
            media_urls: urls("native"),
            extra: Extra::new(),
        }),
        dooh: Some(DoohAsset {
            image_url: s("https://example.com/dooh.png"),
            media_urls: urls("dooh"),
            extra: Extra::new(),
        }),
        channels: Some(vec!["MOBILE".to_owned()]),
        crawlable_url: s("https://example.com/crawl"),
        external_creativeid: s("E1"),
        impression_tracking_pixel_1: s("https://p/1"),
        impression_tracking_pixel_2: s("https://p/2"),
        impression_tracking_pixel_3: s("https://p/3"),
        impression_tracking_pixel_4: s("https://p/4"),
        display: Some(DisplayAsset {
            html_asset: s("<i>display</i>"),
            extra: Extra::new(),
        }),
        status: Some(CreativeStatus::VIOLATION),
        extra: Extra::new(),
    }
}
