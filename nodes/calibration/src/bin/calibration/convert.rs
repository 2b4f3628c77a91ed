//! Messages to and from the library's request and result types.

use std::path::PathBuf;

use calibration::job::JobSummary;
use calibration::request::{CalibrationRequest, FlowFieldReply, FlowFieldRequest};
use flotilla_common::ros as fros;
use r2r::flotilla_msgs::action::Calibrate;
use r2r::flotilla_msgs::srv::EstimateFlowField;

/// "" means "not given".
fn optional_path(text: &str) -> Option<PathBuf> {
    (!text.is_empty()).then(|| PathBuf::from(text))
}

/// The goal as a library request.
pub fn calibration_request(goal: &Calibrate::Goal) -> CalibrationRequest {
    CalibrationRequest {
        recording: PathBuf::from(&goal.recording),
        scenario_file: optional_path(&goal.scenario_file),
        output_dir: optional_path(&goal.output_dir),
        iterations: goal.iterations as usize,
        swarm_size: goal.swarm_size as usize,
        seed: goal.seed,
        window: goal.window,
        lower_bounds: goal.lower_bounds.clone(),
        upper_bounds: goal.upper_bounds.clone(),
        reevaluate_personal_best: goal.reevaluate_personal_best,
        resume: goal.resume,
        flow_field: goal.flow_field.clone(),
        job_settings_file: optional_path(&goal.job_settings_file),
    }
}

/// A refusal or failure: no parameters, the reason in `message`.
pub fn failure(message: String) -> Calibrate::Result {
    Calibrate::Result { success: false, message, ..Default::default() }
}

/// The result of a finished or cancelled job.
pub fn job_result(summary: &JobSummary) -> Calibrate::Result {
    let f = &summary.files;
    let message = if summary.completed {
        format!(
            "calibrated in {} iterations ({} simulations, {:.1} s): best fitness {:.4} m^2, relative MSD error {:.3}; {}",
            summary.iterations,
            summary.evaluations,
            summary.wall_time,
            summary.best_fitness,
            summary.relative_msd_error,
            summary.verdict_line
        )
    } else {
        format!(
            "cancelled after {} iterations; checkpoint kept at {} (send the goal again with resume: true to continue)",
            summary.iterations,
            f.checkpoint.display()
        )
    };
    let files = [
        &f.fitness_history,
        &f.msd_table,
        &f.msd_plot,
        &f.fitness_plot,
        &f.occupancy_plot,
        &f.velocity_plot,
        &f.speed_ks_plot,
        &f.speed_mean_plot,
        &f.speed_histogram,
        &f.report,
        &f.summary,
        &f.checkpoint,
    ];
    Calibrate::Result {
        success: summary.completed,
        message,
        parameters: summary.parameters.iter().map(|(_, v)| *v).collect(),
        fitness: summary.best_fitness,
        parameter_file: f.parameters.display().to_string(),
        files: files.iter().map(|p| p.display().to_string()).collect(),
    }
}

/// The service request as a library request.
pub fn flow_request(req: &EstimateFlowField::Request) -> FlowFieldRequest {
    FlowFieldRequest {
        recordings: req.recordings.iter().map(PathBuf::from).collect(),
        output_file: optional_path(&req.output_file),
        cells: req.cells as usize,
        inversion: req.inversion.clone(),
    }
}

/// A successful estimation.
pub fn flow_response(reply: &FlowFieldReply, output_file: &str, frame: &str) -> EstimateFlowField::Response {
    let written = if output_file.is_empty() { "not written".to_owned() } else { format!("written to {output_file}") };
    EstimateFlowField::Response {
        success: true,
        message: format!(
            "{} x {} cells from {} flow samples, {written}; normality (KS, 5 %) not rejected in {} of {} tested cells",
            reply.grid.nx(),
            reply.grid.ny(),
            reply.samples,
            reply.normal_cells,
            reply.tested_cells
        ),
        field: fros::flow_field_msg(&reply.grid, 0.0, frame),
    }
}

/// A failed estimation.
pub fn flow_failure(message: String) -> EstimateFlowField::Response {
    EstimateFlowField::Response { success: false, message, ..Default::default() }
}
