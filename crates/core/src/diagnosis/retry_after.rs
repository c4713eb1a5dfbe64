//! `Retry-After` (RFC 9110 §10.2.3): delay seconds or an HTTP date.

/// Parses `Retry-After`: delay seconds (`"30"`, also `"1.5"` as some servers send), or an
/// IMF-fixdate (`"Wed, 21 Oct 2015 07:28:00 GMT"`) turned into seconds from `now_unix_s`
/// (0 when already past). `None` when unparsable or a date without `now_unix_s`.
pub fn parse_retry_after(value: &str, now_unix_s: Option<i64>) -> Option<f64> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then_some(seconds);
    }
    let at = parse_http_date(value)?;
    Some((at - now_unix_s?).max(0) as f64)
}

/// Parses an IMF-fixdate (RFC 9110 §5.6.7) into Unix seconds.
fn parse_http_date(value: &str) -> Option<i64> {
    // "Wed, 21 Oct 2015 07:28:00 GMT"
    let (_, rest) = value.split_once(", ")?;
    let parts: Vec<&str> = rest.split_whitespace().collect();
    let [day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| m == month)? as i64 + 1;
    let day: i64 = day.parse().ok()?;
    let year: i64 = year.parse().ok()?;
    let hms: Vec<i64> = time
        .split(':')
        .map(|n| n.parse().ok())
        .collect::<Option<Vec<i64>>>()?;
    let [hour, minute, second] = hms.as_slice() else {
        return None;
    };
    if !(1..=31).contains(&day) || *hour > 23 || *minute > 59 || *second > 60 {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_index = (month + 9) % 12; // March = 0
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}
