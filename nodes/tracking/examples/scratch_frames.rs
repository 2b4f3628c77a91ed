// Scratch (not committed): render a folder of frames and variants, then track each folder.
use image::{DynamicImage, ImageBuffer, Luma, LumaA, Rgba};
use std::path::Path;
use tracking::accuracy::{HarnessConfig, StirringConfig, SyntheticStirring};
use tracking::replay::{self, FrameFolder};
use tracking::{Renderer, Tracker};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let config = HarnessConfig::degraded();
    if args[1] == "make" {
        let root = Path::new(&args[2]);
        let motion = SyntheticStirring::new(StirringConfig::ping_pong_24(21)).unwrap();
        let mut renderer = Renderer::new(config.arena, config.camera.clone(), config.render.clone()).unwrap();
        let variants = ["base", "rgba", "rgb16", "gray16", "graya", "gray", "resized", "black", "white", "mixed"];
        for v in variants {
            std::fs::create_dir_all(root.join(v)).unwrap();
            replay::write_camera(root.join(v), &config.camera).unwrap();
        }
        for k in 0..10u64 {
            let stamp = k as f64 / 30.0;
            let frame = renderer.render_rgb(&motion.objects_at(stamp), k);
            let (w, h) = frame.dimensions();
            let name = format!("frame_{k:06}.png");
            frame.save(root.join("base").join(&name)).unwrap();
            let d = DynamicImage::ImageRgb8(frame.clone());
            d.to_rgba8().save(root.join("rgba").join(&name)).unwrap();
            d.to_rgb16().save(root.join("rgb16").join(&name)).unwrap();
            let g16: ImageBuffer<Luma<u16>, Vec<u16>> = d.to_luma16();
            g16.save(root.join("gray16").join(&name)).unwrap();
            let ga: ImageBuffer<LumaA<u8>, Vec<u8>> = d.to_luma_alpha8();
            ga.save(root.join("graya").join(&name)).unwrap();
            d.to_luma8().save(root.join("gray").join(&name)).unwrap();
            d.resize_exact(w / 2, h / 2, image::imageops::FilterType::Triangle).to_rgb8().save(root.join("resized").join(&name)).unwrap();
            image::RgbImage::from_pixel(w, h, image::Rgb([0, 0, 0])).save(root.join("black").join(&name)).unwrap();
            image::RgbImage::from_pixel(w, h, image::Rgb([255, 255, 255])).save(root.join("white").join(&name)).unwrap();
            if k % 2 == 0 {
                frame.save(root.join("mixed").join(&name)).unwrap();
            } else {
                d.resize_exact(w * 2, h * 2, image::imageops::FilterType::Nearest).to_rgb8().save(root.join("mixed").join(&name)).unwrap();
            }
            let _ = Rgba([0u8; 4]);
        }
        println!("camera {}x{}", config.camera.width, config.camera.height);
        return;
    }
    let dir = Path::new(&args[2]);
    let camera = replay::read_camera(dir).unwrap().unwrap_or(config.camera.clone());
    let mut tracker = Tracker::new(camera, config.detector.clone(), config.tracker.clone()).unwrap();
    for (k, (path, frame)) in FrameFolder::open(dir).unwrap().enumerate() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        match frame {
            Ok(frame) => {
                let t0 = std::time::Instant::now();
                match frame.view() {
                    Ok(view) => match tracker.process(&view, k as f64 / 30.0) {
                        Ok(tracks) => println!(
                            "{name}: {}x{} {:?} -> {} tracks ({:.1} ms)",
                            frame.width,
                            frame.height,
                            frame.encoding,
                            tracks.len(),
                            t0.elapsed().as_secs_f64() * 1e3
                        ),
                        Err(e) => println!("{name}: process error: {e}"),
                    },
                    Err(e) => println!("{name}: view error: {e}"),
                }
            }
            Err(e) => println!("{name}: decode error: {e}"),
        }
    }
}
