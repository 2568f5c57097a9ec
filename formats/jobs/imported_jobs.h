// What an importer of other tools' job records produces (Kubernetes manifests, Slurm sacct,
// Helios logs): entries of the native job list (docs/workloads.md), checked by its loader, and
// the one entry point that picks the importer from what the files hold.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/job.h"
#include "util/expected.h"

namespace topsim {

struct JobListEntries;  // the entries as JSON (formats/jobs/job_list_entries.h, private to formats)

// How records are read (Kubernetes manifests; sacct and Helios logs take no options).
struct ImportOptions {
  // The memory of the cards shares are read against, GiB: a share given as a fraction of a card
  // (KAI gpu-fraction, alibabacloud.com/gpu-milli, HAMi gpumem-percentage or gpucores alone)
  // becomes that share of this many GiB. Default 0: such objects are skipped, saying so.
  int share_card_gib = 0;
  // Several files: one that cannot be read (invalid YAML, an unrendered Helm template, no regular
  // file) is skipped with its error, and only a read that finds no workload at all fails. With
  // `strict` such a file fails the whole read. Default false. A single file always fails.
  bool strict = false;
  // Slurm: the --format of sacct output written with --noheader (e.g. "JobID,Submit,Start,End,
  // AllocTRES,NNodes"); default "" (the output has its header).
  std::string sacct_format;
};

struct ImportedJobs {
  ImportedJobs();
  std::shared_ptr<JobListEntries> entries;  // native job list entries, never null
  std::vector<std::string> skipped;         // what was left out and why, one line each
  // The named objects among `skipped` (a manifest that is no GPU workload), in its order: the job
  // name it would have had ("ns/name") and its line there, for `topsim explain`.
  std::vector<std::pair<std::string, std::string>> skipped_jobs;
  std::vector<std::string> notes;    // defaults assumed, once each
  std::vector<std::string> origins;  // per entry: where it was read ("file:line (job 17)")

  size_t size() const;  // entries
};

// What a workload file or folder holds, from its name and first line (past '#' comments and
// blank lines): a folder or *.yaml / *.yml file is Kubernetes manifests; a '|'-separated line is
// `sacct --parsable2` output (its header, or with --noheader its first row), and a line of
// column names followed by a line of dashes sacct's fixed-width output; a CSV header starting
// with job_id and naming gpu_num a Helios cluster_log.csv; anything else is JSON (a topsim
// workload section, or Kubernetes objects: those have apiVersion).
enum class RecordFormat { Json, Manifests, Sacct, Helios };
RecordFormat record_format(const std::string& path);

// The records at `paths` in `format`: Kubernetes manifests (files or folders, any number; Json
// is read as manifests too), or one sacct output or Helios log.
[[nodiscard]] Expected<ImportedJobs> load_job_records(const std::vector<std::string>& paths, RecordFormat format,
                                                      const ImportOptions& options = {});

// The entries as a workload, checked as every job list is; what was skipped becomes its
// `skipped` (each line a reason; a named object's job name under it). An error about an entry names where
// that entry was read ("sacct.txt:17 (job 4711): /workers: ..."); others name `pointer` inside
// "manifests", the job list's source.
[[nodiscard]] Expected<Workload> imported_workload(const ImportedJobs& imported, std::string_view pointer);

// The entries as the workload file `topsim import jobs` writes: {"kind": "jobs", "jobs": [...]},
// two-space indented, ending in a newline.
std::string render_job_list(const ImportedJobs& imported);

}  // namespace topsim
