// Kueue's multi-layer pod-set slices: the value of the pod-set annotation
// kueue.x-k8s.io/podset-slice-required-topology-constraints, a JSON array of up to three
// {"topology": <level>, "size": <pods>} from the outermost (coarsest) layer to the innermost
// (apis/kueue/v1beta2/topology_types.go, TASMultiLayerTopology, Kueue v0.18+).
#pragma once

#include <string>
#include <vector>

#include "util/expected.h"

namespace topsim {

struct SliceConstraint {
  std::string topology;  // a level's node label (or name)
  int size = 0;          // pods in each slice of this layer
};

// The annotation's layers as written, or why it is not a JSON array of objects with a string
// "topology" and a whole-number "size" (members given once each, no others). The rules on the
// layers themselves (their count, sizes, order) are the plug-in's.
Expected<std::vector<SliceConstraint>> parse_slice_constraints(const std::string& text);

}  // namespace topsim
