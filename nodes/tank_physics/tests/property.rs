//! Property tests over the whole allowed parameter range: no NaN, no explosion, nobody
//! goes through a wall (checked every step); and every out-of-range or non-finite parameter is refused by name.

use flotilla_common::catalogue::ModuleKind;
use proptest::prelude::*;
use tank_physics::{HydroParams, World, WorldConfig};

fn hydro() -> impl Strategy<Value = HydroParams> {
    (0.1f64..=5.0, 0.01f64..=10.0, 0.0f64..=1000.0, 0.0f64..=1.0, 0.0f64..=1.0, 1usize..=100).prop_map(
        |(kv, kf, sigma_stoch, d_linear, d_angular, face_sections)| HydroParams {
            kv,
            kf,
            sigma_stoch,
            d_linear,
            d_angular,
            face_sections,
            ..HydroParams::default()
        },
    )
}

proptest! {
    // Few cases, short runs, little shrinking: each case is a simulation in a debug build.
    // A fixed seed: the same cases every run (new cases come from changing the seed).
    #![proptest_config(ProptestConfig {
        cases: 12,
        max_shrink_iters: 16,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20261121),
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_allowed_setting_stays_finite_and_inside(
        hydro in hydro(),
        power in 0.0f64..=100.0,
        level in -0.27f64..=0.0,
        lily in any::<bool>(),
        count in 1usize..=15,
        seed in any::<u64>(),
    ) {
        let kind = if lily { ModuleKind::Lily } else { ModuleKind::PingPongBall };
        let mut config = WorldConfig { hydro, ..WorldConfig::default() }.with_modules(kind, count, "m").with_pump_power(power);
        config.arena.water_level = level;
        let mut world = World::new(config, seed).unwrap();
        for step in 0..240 {
            world.step();
            // Nobody goes through a wall. At the top of the range (speeds of metres per
            // second, bodies pushed by others) a body may be pressed into the wall for a
            // step, but never by its whole size.
            for b in world.bodies() {
                let centre = nalgebra::Point2::new(b.pose.translation.x, b.pose.translation.y);
                let radius = b.kind.spec().shape.horizontal_radius();
                prop_assert!(
                    world.arena().contains_disc(centre, -radius, 0.0),
                    "{} went through the wall at step {step}: {}", b.name, b.pose.translation.vector
                );
            }
        }
        for b in world.bodies() {
            prop_assert!(b.pose.translation.vector.iter().all(|v| v.is_finite()), "{} pose", b.name);
            prop_assert!(b.pose.rotation.coords.iter().all(|v| v.is_finite()), "{} rotation", b.name);
            // Flow and kicks stay below a few m/s even at the extremes.
            prop_assert!(b.linvel.norm() < 5.0, "{} at {} m/s", b.name, b.linvel.norm());
            prop_assert!(b.angvel.norm() < 500.0, "{} spins at {} rad/s", b.name, b.angvel.norm());
        }
    }

    #[test]
    fn out_of_range_or_non_finite_hydro_is_refused_by_name(
        which in 0usize..5,
        value in prop_oneof![
            Just(f64::NAN), Just(f64::INFINITY), Just(f64::NEG_INFINITY),
            -1e6f64..-0.001, 10.001f64..1e6,
        ],
    ) {
        let keys = ["kv", "kf", "sigma_stoch", "d_linear", "d_angular"];
        // sigma_stoch allows up to 1000: push it past that.
        let value = if which == 2 && value > 0.0 && value <= 1000.0 { value + 1000.0 } else { value };
        let yaml = format!("hydro: {{{}: {}}}", keys[which], if value.is_nan() { ".nan".to_owned() } else if value.is_infinite() { if value > 0.0 { ".inf".into() } else { "-.inf".into() } } else { value.to_string() });
        let tree: serde_yaml::Value = serde_yaml::from_str(&yaml).unwrap();
        let err = WorldConfig::from_params(&tree).unwrap_err();
        prop_assert_eq!(err.key(), format!("hydro.{}", keys[which]));
        // The same through the live path.
        let mut world = World::new(WorldConfig::default(), 0).unwrap();
        let mut params = HydroParams::default();
        match which {
            0 => params.kv = value,
            1 => params.kf = value,
            2 => params.sigma_stoch = value,
            3 => params.d_linear = value,
            _ => params.d_angular = value,
        }
        let err = world.set_hydro(params).unwrap_err();
        prop_assert_eq!(err.key(), format!("hydro.{}", keys[which]));
        prop_assert_eq!(world.config().hydro.clone(), HydroParams::default());
    }
}
