//! `carcassonne balance` output: the text summary and the self-contained HTML report, its
//! charts drawn by plotters as inline SVG.

use carcassonne_play::balance::{BalanceReport, Change, Rate};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::fmt::Write as _;

const WITHOUT: RGBColor = RGBColor(0x9a, 0xa5, 0xb1);
const WITH: RGBColor = RGBColor(0x2b, 0x6c, 0xb0);

/// The report as text: the verdicts, then the tables.
pub fn text(r: &BalanceReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "balance of `{}`: {} paired games, {} players, bots {}, seed {}",
        r.expansion,
        r.games,
        r.players,
        r.bots.join(", "),
        r.seed
    );
    if !r.base.is_empty() {
        let _ = writeln!(out, "base set: {}", r.base.join(", "));
    }
    for line in &r.summary {
        let _ = writeln!(out, "- {line}");
    }
    let _ = writeln!(out, "\npoints per game by label (without -> with):");
    for l in &r.points_by_label {
        let _ = writeln!(
            out,
            "  {:<20} {:>7.2} -> {:>7.2}   ({:.1}% -> {:.1}% of all points)",
            l.label,
            l.per_game_without,
            l.per_game_with,
            l.without * 100.0,
            l.with * 100.0
        );
    }
    if r.actions.is_empty() {
        let _ = writeln!(out, "\nthe expansion offered no action of its own");
    } else {
        let _ = writeln!(out, "\nthe expansion's actions (in the games with it):");
        for a in &r.actions {
            let _ = writeln!(
                out,
                "  {:<32} offered {:>7}, taken {:>7} ({:.1}%), points after {:+.2} [{:+.2}, {:+.2}]",
                a.action,
                a.offered,
                a.taken,
                a.take_rate * 100.0,
                a.points_after.mean,
                a.points_after.ci95[0],
                a.points_after.ci95[1]
            );
        }
    }
    let _ = write!(
        out,
        "\nabstainer (one seat never uses it): wins {:.1}% [{:.1}-{:.1}], users {:.1}% [{:.1}-{:.1}] per seat",
        r.abstainer.abstainer_win_rate.rate * 100.0,
        r.abstainer.abstainer_win_rate.ci95[0] * 100.0,
        r.abstainer.abstainer_win_rate.ci95[1] * 100.0,
        r.abstainer.user_win_rate.rate * 100.0,
        r.abstainer.user_win_rate.ci95[0] * 100.0,
        r.abstainer.user_win_rate.ci95[1] * 100.0,
    );
    out
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Horizontal grouped bars: one category per row (first row on top), a grey "without" bar
/// above a blue "with" bar; `ci` draws each bar's interval as a whisker.
fn bars(
    title: &str,
    rows: &[(String, f64, f64)],
    ci: Option<&[([f64; 2], [f64; 2])]>,
    x_max: f64,
) -> Result<String, String> {
    // plotters measures text with a registered font: the one the PNG renderer embeds.
    plotters::style::register_font(
        "sans-serif",
        FontStyle::Normal,
        carcassonne_raster::sans_font(),
    )
    .map_err(|_| "the embedded font did not load".to_string())?;
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let mut svg = String::new();
    let n = rows.len().max(1);
    let height = 90 + 44 * n as u32;
    {
        let root = SVGBackend::with_string(&mut svg, (760, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(30)
            .y_label_area_size(230)
            .build_cartesian_2d(0f64..x_max.max(1e-9) * 1.05, 0f64..n as f64)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .disable_y_axis()
            .x_label_style(("sans-serif", 12))
            .draw()
            .map_err(|e| err(&e))?;
        // Row i spans [y, y + 1) with y = n - 1 - i: the "with" bar low, "without" high.
        let y = |i: usize| (n - 1 - i) as f64;
        chart
            .draw_series(rows.iter().enumerate().map(|(i, r)| {
                Rectangle::new([(0.0, y(i) + 0.52), (r.1, y(i) + 0.88)], WITHOUT.filled())
            }))
            .map_err(|e| err(&e))?
            .label("without")
            .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], WITHOUT.filled()));
        chart
            .draw_series(rows.iter().enumerate().map(|(i, r)| {
                Rectangle::new([(0.0, y(i) + 0.12), (r.2, y(i) + 0.48)], WITH.filled())
            }))
            .map_err(|e| err(&e))?
            .label("with")
            .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], WITH.filled()));
        if let Some(ci) = ci {
            let whiskers = ci
                .iter()
                .enumerate()
                .flat_map(|(i, (a, b))| [(*a, y(i) + 0.7), (*b, y(i) + 0.3)]);
            chart
                .draw_series(whiskers.map(|(c, at)| {
                    PathElement::new(vec![(c[0], at), (c[1], at)], BLACK.stroke_width(2))
                }))
                .map_err(|e| err(&e))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .label_font(("sans-serif", 12))
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
        // Row labels, right-aligned beside the plot.
        let style = TextStyle::from(("sans-serif", 13).into_font())
            .pos(Pos::new(HPos::Right, VPos::Center));
        for (i, r) in rows.iter().enumerate() {
            let (px, py) = chart.backend_coord(&(0.0, y(i) + 0.5));
            root.draw(&Text::new(r.0.clone(), (px - 8, py), style.clone()))
                .map_err(|e| err(&e))?;
        }
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}

fn chart_or_note(r: Result<String, String>) -> String {
    r.unwrap_or_else(|e| format!("<p class=\"note\">chart not drawn: {}</p>", esc(&e)))
}

fn rate_cell(r: &Rate) -> String {
    format!(
        "{:.1}% <span class=\"ci\">[{:.1}, {:.1}]</span> <span class=\"n\">n={}</span>",
        r.rate * 100.0,
        r.ci95[0] * 100.0,
        r.ci95[1] * 100.0,
        r.n
    )
}

fn change_row(name: &str, c: &Change, scale: f64) -> String {
    let f = |m: &carcassonne_play::balance::Mean| {
        format!(
            "{:.2} <span class=\"ci\">[{:.2}, {:.2}]</span>",
            m.mean * scale,
            m.ci95[0] * scale,
            m.ci95[1] * scale
        )
    };
    format!(
        "<tr><th>{}</th><td>{}</td><td>{}</td><td>{}</td></tr>",
        esc(name),
        f(&c.without),
        f(&c.with),
        f(&c.difference)
    )
}

/// The self-contained HTML report (no scripts, no external files).
pub fn html(r: &BalanceReport) -> String {
    let mut h = String::new();
    let title = format!("Balance report: {}", r.expansion);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title>\
<style>body{{font-family:sans-serif;max-width:820px;margin:2em auto;color:#222}}\
table{{border-collapse:collapse;margin:1em 0}}td,th{{border:1px solid #ccc;padding:4px 8px;text-align:right}}\
th{{text-align:left}}.ci{{color:#666;font-size:90%}}.n{{color:#999;font-size:80%}}\
li{{margin:.3em 0}}.note{{color:#a00}}</style></head><body>\n<h1>{t}</h1>\n",
        t = esc(&title)
    );
    let _ = writeln!(
        h,
        "<p>{} paired games of {} players, bots {}, seed {}. Base set: {}. Each game index was \
played without the expansion, with it, and with it while one seat (rotated) never used its \
actions. Intervals are 95%; a difference whose interval contains 0 is reported as no detectable \
effect.</p>",
        r.games,
        r.players,
        esc(&r.bots.join(", ")),
        r.seed,
        if r.base.is_empty() {
            "the base game".to_string()
        } else {
            esc(&r.base.join(", "))
        }
    );
    let _ = writeln!(h, "<h2>Verdicts</h2><ul>");
    for line in &r.summary {
        let _ = writeln!(h, "<li>{}</li>", esc(line));
    }
    let _ = writeln!(h, "</ul>");
    let _ = writeln!(
        h,
        "<h2>Paired changes</h2><table><tr><th></th><th>without</th><th>with</th><th>difference</th></tr>{}{}{}{}</table>",
        change_row("first seat's win rate (%)", &r.first_player_advantage, 100.0),
        change_row("winner's lead", &r.score_spread, 1.0),
        change_row("mean final score", &r.score_mean, 1.0),
        change_row("turns per game", &r.game_length, 1.0)
    );
    let rows: Vec<(String, f64, f64)> = vec![
        (
            "first seat wins".into(),
            r.first_player_advantage.without.mean,
            r.first_player_advantage.with.mean,
        ),
        (
            "abstainer vs user (per seat)".into(),
            r.abstainer.abstainer_win_rate.rate,
            r.abstainer.user_win_rate.rate,
        ),
    ];
    let ci = [
        (
            r.first_player_advantage.without.ci95,
            r.first_player_advantage.with.ci95,
        ),
        (
            r.abstainer.abstainer_win_rate.ci95,
            r.abstainer.user_win_rate.ci95,
        ),
    ];
    let _ = writeln!(
        h,
        "<h2>Win rates</h2>{}",
        chart_or_note(bars(
            "Win rates (grey: without / abstainer; blue: with / users)",
            &rows,
            Some(&ci),
            1.0
        ))
    );
    let _ = writeln!(
        h,
        "<table><tr><th>abstainer's win rate</th><td>{}</td></tr><tr><th>users' win rate (per seat)</th><td>{}</td></tr><tr><th>same seat when it uses the expansion</th><td>{:.1}%</td></tr></table>",
        rate_cell(&r.abstainer.abstainer_win_rate),
        rate_cell(&r.abstainer.user_win_rate),
        r.abstainer.fair_share * 100.0
    );
    let rows: Vec<(String, f64, f64)> = r
        .points_by_label
        .iter()
        .map(|l| (l.label.clone(), l.per_game_without, l.per_game_with))
        .collect();
    let max = rows.iter().map(|r| r.1.max(r.2)).fold(0.0, f64::max);
    let _ = writeln!(
        h,
        "<h2>Points by scoring label</h2>{}",
        chart_or_note(bars("Points per game by label", &rows, None, max))
    );
    let _ = writeln!(
        h,
        "<table><tr><th>label</th><th>per game without</th><th>per game with</th><th>share without</th><th>share with</th></tr>"
    );
    for l in &r.points_by_label {
        let _ = writeln!(
            h,
            "<tr><th>{}</th><td>{:.2}</td><td>{:.2}</td><td>{:.1}%</td><td>{:.1}%</td></tr>",
            esc(&l.label),
            l.per_game_without,
            l.per_game_with,
            l.without * 100.0,
            l.with * 100.0
        );
    }
    let _ = writeln!(h, "</table><h2>The expansion's actions</h2>");
    if r.actions.is_empty() {
        let _ = writeln!(h, "<p>The expansion offered no action of its own.</p>");
    } else {
        let per_game = r.games.max(1) as f64;
        let rows: Vec<(String, f64, f64)> = r
            .actions
            .iter()
            .map(|a| {
                (
                    a.action.clone(),
                    a.offered as f64 / per_game,
                    a.taken as f64 / per_game,
                )
            })
            .collect();
        let max = rows.iter().map(|r| r.1.max(r.2)).fold(0.0, f64::max);
        let _ = writeln!(
            h,
            "{}",
            chart_or_note(bars(
                "Per game: offered (grey) and taken (blue)",
                &rows,
                None,
                max
            ))
        );
        let _ = writeln!(
            h,
            "<table><tr><th>action</th><th>offered</th><th>taken</th><th>take rate</th><th>points after (rest of the turn)</th></tr>"
        );
        for a in &r.actions {
            let _ = writeln!(
                h,
                "<tr><th>{}</th><td>{}</td><td>{}</td><td>{:.1}%</td><td>{:+.2} <span class=\"ci\">[{:+.2}, {:+.2}]</span></td></tr>",
                esc(&a.action),
                a.offered,
                a.taken,
                a.take_rate * 100.0,
                a.points_after.mean,
                a.points_after.ci95[0],
                a.points_after.ci95[1]
            );
        }
        let _ = writeln!(h, "</table>");
    }
    let _ = writeln!(h, "</body></html>");
    h
}
