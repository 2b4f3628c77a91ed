use tracking::accuracy::*;
fn main() {
    let motion = SyntheticStirring::new(StirringConfig::ping_pong_24(1)).unwrap();
    let mut h = Harness::new(HarnessConfig::degraded()).unwrap();
    for f in 0..30u64 {
        let t = f as f64 / 30.0;
        let truth = motion.objects_at(t);
        let (img, _) = h.step(t, &truth).unwrap();
        if f == 0 { if let RenderedFrame::Gray(g) = img { g.save("/tmp/zz_degraded.png").unwrap(); } }
        let dets = h.tracker().detections();
        for d in dets {
            let near = truth.iter().map(|o| (o.x - d.x).hypot(o.y - d.y)).fold(f64::MAX, f64::min);
            if near > 0.01 { println!("frame {f} false: u {:.1} v {:.1} x {:.4} y {:.4} r {:.4} diam {:.4} contrast {:.1}", d.u, d.v, d.x, d.y, d.x.hypot(d.y), d.diameter, d.contrast); }
        }
        if f == 0 { println!("{:?}", h.tracker().detection_stats()); }
    }
}
