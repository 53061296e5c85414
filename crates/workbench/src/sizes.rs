//! Whether a creative's `size` is one that inventory is sold in.

use flightdeck_model::validate::limits::CREATIVE_SIZE_MAX;
use flightdeck_model::{Creative, CreativeType};

use crate::{Finding, Level};

/// Standard sizes, width × height in pixels. Sources: the IAB's "New Ad Portfolio"
/// (2017) fixed sizes and the legacy IAB units still sold (its Display Guidelines);
/// common player sizes for video; and the OpenOOH `creative-formats` list and the
/// research note's screens for DOOH (landscape and portrait HD and 4K, and the common
/// street-furniture and billboard panels).
pub const STANDARD_SIZES: &[(i64, i64)] = &[
    // IAB display, fixed sizes.
    (120, 60),
    (120, 90),
    (120, 240),
    (120, 600),
    (125, 125),
    (160, 600),
    (180, 150),
    (200, 200),
    (234, 60),
    (250, 250),
    (300, 50),
    (300, 100),
    (300, 250),
    (300, 600),
    (300, 1050),
    (320, 50),
    (320, 100),
    (320, 480),
    (336, 280),
    (468, 60),
    (480, 320),
    (728, 90),
    (768, 1024),
    (970, 66),
    (970, 90),
    (970, 250),
    (1024, 768),
    // Native images (1.91:1 and square) and icons.
    (1200, 627),
    (1200, 628),
    (1200, 1200),
    (627, 627),
    (50, 50),
    (80, 80),
    (100, 100),
    // Video players.
    (400, 300),
    (640, 360),
    (640, 480),
    (854, 480),
    (1280, 720),
    // DOOH screens, landscape and portrait.
    (1920, 1080),
    (1080, 1920),
    (3840, 2160),
    (2160, 3840),
    (1366, 768),
    (768, 1366),
    (1400, 400),
    (1280, 1024),
    (1024, 1280),
    (840, 400),
    (1080, 1080),
];

/// `size` not in [`STANDARD_SIZES`]: an info, since a custom size is legal but little
/// inventory takes it. Audio has no size to judge; a size the model refuses (zero,
/// negative, too large) is its error alone.
pub fn check(c: &Creative, out: &mut Vec<Finding>) {
    if c.creative_type.as_ref() == Some(&CreativeType::AUDIO) {
        return;
    }
    let Some(size) = &c.size else {
        return;
    };
    let (Some(w), Some(h)) = (size.width, size.height) else {
        return;
    };
    if !(1..=CREATIVE_SIZE_MAX).contains(&w) || !(1..=CREATIVE_SIZE_MAX).contains(&h) {
        return;
    }
    if !STANDARD_SIZES.contains(&(w, h)) {
        out.push(Finding::new(
            "size.non-standard",
            Level::Info,
            "size",
            None,
            format!("{w}×{h} is not a standard IAB or DOOH size: little inventory may take it"),
        ));
    }
}
