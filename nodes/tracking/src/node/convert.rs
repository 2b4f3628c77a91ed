//! Messages to and from the library's types.

use crate::accuracy::RenderedFrame;
use crate::camera::CameraModel;
use crate::track::Track;
use flotilla_common::ros as fros;
use r2r::sensor_msgs::msg::{CameraInfo, Image, RegionOfInterest};
use r2r::std_msgs::msg::ColorRGBA;
use r2r::visualization_msgs::msg::{Marker, MarkerArray};

/// QoS of image topics: reliable, one second of 30 Hz frames deep, so a frame whose UDP
/// fragments were dropped under load can still be repaired before the history overwrites
/// it (the default depth of 10 lost about one 3 MB frame in ten on a loaded 2-core machine).
pub fn image_qos() -> r2r::QosProfile {
    r2r::QosProfile::default().keep_last(30)
}

/// A header stamp in seconds.
pub fn seconds(stamp: &r2r::builtin_interfaces::msg::Time) -> f64 {
    f64::from(stamp.sec) + f64::from(stamp.nanosec) * 1e-9
}

/// A rendered or decoded frame as sensor_msgs/Image.
pub fn image_msg(frame: &RenderedFrame, stamp: f64, frame_id: &str) -> Image {
    let (encoding, step, data) = frame.raw();
    let (width, height) = frame.size();
    Image {
        header: fros::header(stamp, frame_id),
        height,
        width,
        encoding: encoding.to_owned(),
        is_bigendian: 0,
        step,
        data: data.to_vec(),
    }
}

/// The camera model as sensor_msgs/CameraInfo (plumb_bob; K, D, R, P of the lens).
pub fn camera_info_msg(camera: &CameraModel, stamp: f64, frame_id: &str) -> CameraInfo {
    let info = camera.camera_info();
    CameraInfo {
        header: fros::header(stamp, frame_id),
        height: info.height,
        width: info.width,
        distortion_model: info.distortion_model,
        d: info.d,
        k: info.k.to_vec(),
        r: info.r.to_vec(),
        p: info.p.to_vec(),
        binning_x: 0,
        binning_y: 0,
        roi: RegionOfInterest::default(),
    }
}

/// The confirmed tracks of one frame.
pub fn track_array_msg(
    tracks: &[Track],
    stamp: &r2r::builtin_interfaces::msg::Time,
    frame_id: &str,
) -> r2r::flotilla_msgs::msg::TrackArray {
    r2r::flotilla_msgs::msg::TrackArray {
        header: r2r::std_msgs::msg::Header { stamp: stamp.clone(), frame_id: frame_id.to_owned() },
        tracks: tracks
            .iter()
            .map(|t| r2r::flotilla_msgs::msg::Track {
                id: t.id,
                x: t.x,
                y: t.y,
                heading: t.heading.unwrap_or(0.0),
                has_heading: t.heading.is_some(),
                confidence: t.confidence,
                missed_frames: t.missed_frames,
            })
            .collect(),
    }
}

/// The tracks for rviz: a disc per track on the water plane (`plane_z` in `frame_id`),
/// brighter with confidence, an arrow for the heading and the id as text. Starts with
/// DELETEALL so lost tracks disappear.
pub fn track_markers(tracks: &[Track], stamp: &r2r::builtin_interfaces::msg::Time, frame_id: &str, plane_z: f64) -> MarkerArray {
    let header = r2r::std_msgs::msg::Header { stamp: stamp.clone(), frame_id: frame_id.to_owned() };
    let mut markers = vec![Marker { header: header.clone(), action: Marker::DELETEALL as i32, ..Default::default() }];
    for t in tracks {
        let id = t.id as i32;
        let position = r2r::geometry_msgs::msg::Point { x: t.x, y: t.y, z: plane_z };
        let base = Marker {
            header: header.clone(),
            id,
            action: Marker::ADD as i32,
            pose: r2r::geometry_msgs::msg::Pose { position, ..Default::default() },
            ..Default::default()
        };
        let level = t.confidence as f32;
        markers.push(Marker {
            ns: "tracks".into(),
            type_: Marker::CYLINDER as i32,
            scale: r2r::geometry_msgs::msg::Vector3 { x: 0.02, y: 0.02, z: 0.004 },
            color: ColorRGBA { r: 0.1, g: 0.4 + 0.6 * level, b: 0.2, a: 0.8 },
            ..base.clone()
        });
        if let Some(heading) = t.heading {
            let (s, c) = (0.5 * heading).sin_cos();
            let mut arrow = Marker {
                ns: "headings".into(),
                type_: Marker::ARROW as i32,
                scale: r2r::geometry_msgs::msg::Vector3 { x: 0.025, y: 0.003, z: 0.003 },
                color: ColorRGBA { r: 1.0, g: 1.0, b: 0.2, a: 0.9 },
                ..base.clone()
            };
            arrow.pose.orientation = r2r::geometry_msgs::msg::Quaternion { x: 0.0, y: 0.0, z: s, w: c };
            markers.push(arrow);
        }
        let mut label = Marker {
            ns: "track_ids".into(),
            type_: Marker::TEXT_VIEW_FACING as i32,
            scale: r2r::geometry_msgs::msg::Vector3 { x: 0.0, y: 0.0, z: 0.012 },
            color: ColorRGBA { r: 1.0, g: 1.0, b: 1.0, a: 0.9 },
            text: t.id.to_string(),
            ..base
        };
        label.pose.position.z += 0.02;
        markers.push(label);
    }
    MarkerArray { markers }
}
