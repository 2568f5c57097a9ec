#include "formats/jobs/tenant_labels.h"

#include <map>

#include "formats/support/json_reader.h"
#include "util/one_line.h"

namespace topsim {

Expected<TenantLabels> tenant_labels(const std::function<std::string(const char* key)>& label_value) {
  TenantLabels out;
  for (const char* key : {kKueueQueueLabel, kKaiQueueLabel, kKaiLegacyQueueLabel}) {
    std::string value = label_value(key);
    if (value.empty()) continue;
    if (out.queue.value.empty())
      out.queue = {std::move(value), key};
    else if (value != out.queue.value)
      return Error{out.queue.label + " '" + quoted_value(out.queue.value) + "' and " + key + " '" + quoted_value(value) +
                   "' name different queues"};
  }
  for (const char* key : {kKueuePriorityClassLabel, kKaiPriorityClassLabel}) {
    if (!out.priority_class.value.empty()) break;
    if (std::string value = label_value(key); !value.empty()) out.priority_class = {std::move(value), key};
  }
  return out;
}

namespace {

// "labels": label -> (value, pointer); fails unless an object of strings.
std::map<std::string, std::pair<std::string, std::string>> read_labels(JsonErrors& errors, const JsonAt& at) {
  std::map<std::string, std::pair<std::string, std::string>> labels;
  if (!at.value->is_object())
    return errors.fail(at.pointer, "must be an object of label name -> value, got " + describe_json(*at.value)), labels;
  for (const auto& [key, value] : at.value->items()) {
    const JsonAt label = at.member(key);
    if (const auto text = json_string(errors, label)) labels[key] = {*text, label.pointer};
  }
  return labels;
}

// `key` ("queue" or "priority_class") into `name` / `pointer`, unless a label named another one.
void read_name(const JsonObject& entry, const char* key, const char* what, std::string& name, std::string& pointer,
               const std::string& label) {
  const auto text = entry.string(key);
  if (!text) return;
  if (text->empty()) return entry.fail(key, "must not be empty");
  if (!name.empty() && *text != name)
    return entry.fail(key, "'" + quoted_value(*text) + "' but the label " + label + " names " + what + " '" + quoted_value(name) +
                               "': give one, or the same in both");
  name = *text;
  pointer = entry.pointer(key);
}

}  // namespace

EntryTenant read_entry_tenant(JsonErrors& errors, const JsonObject& entry) {
  EntryTenant out;
  std::map<std::string, std::pair<std::string, std::string>> labels;
  if (const auto at = entry.member("labels")) labels = read_labels(errors, *at);
  if (errors.failed()) return out;
  const auto value = [&](const char* key) { return labels.count(key) ? labels[key].first : std::string(); };
  const auto tenant = tenant_labels(value);
  if (!tenant) return errors.fail(entry.pointer("labels"), tenant.error().message), out;
  if (!tenant->queue.value.empty()) out.queue = tenant->queue.value, out.queue_pointer = labels[tenant->queue.label].second;
  if (!tenant->priority_class.value.empty())
    out.priority_class = tenant->priority_class.value, out.class_pointer = labels[tenant->priority_class.label].second;
  read_name(entry, "queue", "the queue", out.queue, out.queue_pointer, tenant->queue.label);
  read_name(entry, "priority_class", "the priority class", out.priority_class, out.class_pointer, tenant->priority_class.label);
  return out;
}

}  // namespace topsim
