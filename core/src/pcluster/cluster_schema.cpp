// The allowed-key tables, transcribed from ParallelCluster 3's cluster_schema.py and
// common_schema.py (3.8 - 3.14 era: LoginNodes, HealthChecks and Sequence custom actions exist).
// Each function is one marshmallow schema class; keys are the PascalCase data keys.
#include "schema.hpp"

namespace trn::pcluster {
namespace {

Field text(std::string_view key) { return {.key = key}; }
Field integer(std::string_view key) { return {.key = key, .kind = ValueKind::kInteger}; }
Field number(std::string_view key) { return {.key = key, .kind = ValueKind::kNumber}; }
Field boolean(std::string_view key) { return {.key = key, .kind = ValueKind::kBoolean}; }
Field strings(std::string_view key) { return {.key = key, .kind = ValueKind::kStringList}; }
Field anything(std::string_view key) { return {.key = key, .kind = ValueKind::kAny}; }
Field action(std::string_view key) { return {.key = key, .kind = ValueKind::kCustomAction}; }
Field map(std::string_view key, const Section& section) {
  return {.key = key, .kind = ValueKind::kMap, .section = &section};
}
Field maps(std::string_view key, const Section& section) {
  return {.key = key, .kind = ValueKind::kMapList, .section = &section};
}
Field required(Field field) {
  field.required = true;
  return field;
}
Field one_of(Field field, std::vector<std::string_view> values) {
  field.one_of = std::move(values);
  return field;
}
Field matching(Field field, std::string_view pattern, std::string_view meaning) {
  field.pattern = pattern;
  field.pattern_meaning = meaning;
  return field;
}
Field at_least(Field field, long long minimum) {
  field.minimum = minimum;
  return field;
}

// common_schema.py ALLOWED_VALUES and constants.py.
constexpr std::string_view subnet_id = "subnet-[0-9a-z]{8}|subnet-[0-9a-z]{17}";
constexpr std::string_view subnet_meaning = "'subnet-' and 8 or 17 lowercase letters or digits";
constexpr std::string_view security_group_id = "sg-[0-9a-z]{8}|sg-[0-9a-z]{17}";
constexpr std::string_view security_group_meaning = "'sg-' and 8 or 17 lowercase letters or digits";
constexpr std::string_view ami_id = "ami-[0-9a-z]{8}|ami-[0-9a-z]{17}";
constexpr std::string_view ami_meaning = "'ami-' and 8 or 17 lowercase letters or digits";
constexpr std::string_view file_path = "\\/?[^\\/.\\\\][^\\/\\\\]*(\\/[^\\/.\\\\][^\\/]*)*";
constexpr std::string_view file_path_meaning =
    "a path such as /fsx (no component may start with '.')";

Field subnet(std::string_view key) { return matching(text(key), subnet_id, subnet_meaning); }
Field security_groups(std::string_view key) {
  return matching(strings(key), security_group_id, security_group_meaning);
}
Field custom_ami() { return matching(text("CustomAmi"), ami_id, ami_meaning); }
Field mount_dir() { return matching(text("MountDir"), file_path, file_path_meaning); }
Field volume_type() {
  return one_of(text("VolumeType"), {"standard", "io1", "io2", "gp2", "st1", "sc1", "gp3"});
}

const Section& tag() {
  static const Section s{{required(text("Key")), required(text("Value"))}};
  return s;
}

const Section& proxy() {
  static const Section s{{text("HttpProxyAddress")}};
  return s;
}

const Section& custom_ami_only() {
  static const Section s{{custom_ami()}};
  return s;
}

const Section& image() {
  static const Section s{{
      required(one_of(text("Os"), {"alinux2", "alinux2023", "ubuntu2004", "ubuntu2204",
                                   "ubuntu2404", "rhel8", "rocky8", "rhel9", "rocky9"})),
      custom_ami(),
  }};
  return s;
}

const Section& ephemeral_volume() {
  static const Section s{{mount_dir()}};
  return s;
}

const Section& head_node_root_volume() {
  static const Section s{{volume_type(), integer("Iops"), integer("Size"), integer("Throughput"),
                          boolean("Encrypted"), boolean("DeleteOnTermination")}};
  return s;
}

const Section& head_node_storage() {
  static const Section s{
      {map("RootVolume", head_node_root_volume()), map("EphemeralVolume", ephemeral_volume())}};
  return s;
}

const Section& queue_root_volume() {
  static const Section s{{integer("Size"), boolean("Encrypted"), volume_type(), integer("Iops"),
                          integer("Throughput")}};
  return s;
}

const Section& queue_storage() {
  static const Section s{
      {map("RootVolume", queue_root_volume()), map("EphemeralVolume", ephemeral_volume())}};
  return s;
}

const Section& head_node_networking() {
  static const Section s{{
      required(subnet("SubnetId")),
      anything("ElasticIp"),  // fields.Raw: true, false or an allocation id
      security_groups("SecurityGroups"),
      security_groups("AdditionalSecurityGroups"),
      map("Proxy", proxy()),
  }};
  return s;
}

const Section& head_node_ssh() {
  static const Section s{{text("KeyName"), text("AllowedIps")}};
  return s;
}

const Section& dcv() {
  static const Section s{{boolean("Enabled"), integer("Port"), text("AllowedIps")}};
  return s;
}

const Section& head_node_custom_actions() {
  static const Section s{
      {action("OnNodeStart"), action("OnNodeConfigured"), action("OnNodeUpdated")}};
  return s;
}

const Section& queue_custom_actions() {
  static const Section s{{action("OnNodeStart"), action("OnNodeConfigured")}};
  return s;
}

const Section& s3_access() {
  static const Section s{
      {required(text("BucketName")), text("KeyName"), boolean("EnableWriteAccess")}};
  return s;
}

const Section& additional_iam_policy() {
  static const Section s{{required(text("Policy"))}};
  return s;
}

const Section& node_iam() {
  static const Section s{{text("InstanceRole"), text("InstanceProfile"),
                          maps("S3Access", s3_access()),
                          maps("AdditionalIamPolicies", additional_iam_policy())}};
  return s;
}

const Section& head_node_imds() {
  static const Section s{{boolean("Secured")}};
  return s;
}

const Section& head_node() {
  static const Section s{{
      required(text("InstanceType")),
      boolean("DisableSimultaneousMultithreading"),
      required(map("Networking", head_node_networking())),
      map("Ssh", head_node_ssh()),
      map("LocalStorage", head_node_storage()),
      map("Dcv", dcv()),
      map("CustomActions", head_node_custom_actions()),
      map("Iam", node_iam()),
      map("Imds", head_node_imds()),
      map("Image", custom_ami_only()),
  }};
  return s;
}

const Section& placement_group() {
  static const Section s{{boolean("Enabled"), text("Id"), text("Name")}};
  return s;
}

const Section& slurm_queue_networking() {
  static const Section s{{
      required(matching(strings("SubnetIds"), subnet_id, subnet_meaning)),
      boolean("AssignPublicIp"),
      security_groups("SecurityGroups"),
      security_groups("AdditionalSecurityGroups"),
      map("PlacementGroup", placement_group()),
      map("Proxy", proxy()),
  }};
  return s;
}

const Section& compute_resource_networking() {
  static const Section s{{map("PlacementGroup", placement_group())}};
  return s;
}

const Section& efa() {
  static const Section s{{boolean("Enabled"), boolean("GdrSupport")}};
  return s;
}

const Section& flexible_instance_type() {
  static const Section s{{required(text("InstanceType"))}};
  return s;
}

const Section& capacity_reservation_target() {
  static const Section s{
      {text("CapacityReservationId"), text("CapacityReservationResourceGroupArn")}};
  return s;
}

const Section& slurm_compute_resource() {
  static const Section s{{
      required(text("Name")),
      text("InstanceType"),
      maps("Instances", flexible_instance_type()),
      at_least(integer("MaxCount"), 1),
      at_least(integer("MinCount"), 0),
      number("SpotPrice"),
      map("Efa", efa()),
      boolean("DisableSimultaneousMultithreading"),
      integer("SchedulableMemory"),
      map("CapacityReservationTarget", capacity_reservation_target()),
      map("Networking", compute_resource_networking()),
      anything("HealthChecks"),
      anything("CustomSlurmSettings"),
      maps("Tags", tag()),
      integer("StaticNodePriority"),
      integer("DynamicNodePriority"),
  }};
  return s;
}

const Section& compute_settings() {
  static const Section s{{map("LocalStorage", queue_storage())}};
  return s;
}

const Section& slurm_queue() {
  static const Section s{{
      required(text("Name")),
      // The allowed values of these two grew between releases (CAPACITY_BLOCK, ...): not checked.
      text("CapacityType"),
      text("AllocationStrategy"),
      map("ComputeSettings", compute_settings()),
      map("CustomActions", queue_custom_actions()),
      map("Iam", node_iam()),
      map("Image", custom_ami_only()),
      map("CapacityReservationTarget", capacity_reservation_target()),
      maps("ComputeResources", slurm_compute_resource()),
      required(map("Networking", slurm_queue_networking())),
      anything("HealthChecks"),
      anything("CustomSlurmSettings"),
      maps("Tags", tag()),
      boolean("JobExclusiveAllocation"),
  }};
  return s;
}

const Section& dns() {
  static const Section s{
      {boolean("DisableManagedDns"), text("HostedZoneId"), boolean("UseEc2Hostnames")}};
  return s;
}

const Section& slurm_settings() {
  static const Section s{{
      integer("ScaledownIdletime"),
      map("Dns", dns()),
      one_of(text("QueueUpdateStrategy"), {"COMPUTE_FLEET_STOP", "DRAIN", "TERMINATE"}),
      boolean("EnableMemoryBasedScheduling"),
      anything("Database"),
      anything("CustomSlurmSettings"),
      text("CustomSlurmSettingsIncludeFile"),
  }};
  return s;
}

const Section& scheduling() {
  static const Section s{{
      required(one_of(text("Scheduler"), {"slurm", "awsbatch"})),
      map("SlurmSettings", slurm_settings()),
      maps("SlurmQueues", slurm_queue()),
      anything("AwsBatchQueues"),
      anything("AwsBatchSettings"),
  }};
  return s;
}

const Section& fsx_lustre_settings() {
  static const Section s{{
      integer("StorageCapacity"),
      one_of(text("DeploymentType"), {"SCRATCH_1", "SCRATCH_2", "PERSISTENT_1", "PERSISTENT_2"}),
      integer("ImportedFileChunkSize"),
      text("ExportPath"),
      text("ImportPath"),
      text("WeeklyMaintenanceStartTime"),
      integer("AutomaticBackupRetentionDays"),
      boolean("CopyTagsToBackups"),
      text("DailyAutomaticBackupStartTime"),
      integer("PerUnitStorageThroughput"),
      text("BackupId"),
      text("KmsKeyId"),
      text("FileSystemId"),
      one_of(text("AutoImportPolicy"), {"NEW", "NEW_CHANGED", "NEW_CHANGED_DELETED"}),
      one_of(text("DriveCacheType"), {"READ"}),
      one_of(text("DataCompressionType"), {"LZ4"}),
      one_of(text("StorageType"), {"HDD", "SSD"}),
      one_of(text("DeletionPolicy"), {"Delete", "Retain"}),
  }};
  return s;
}

const Section& shared_storage() {
  static const Section s{{
      required(mount_dir()),
      required(text("Name")),
      required(one_of(text("StorageType"),
                      {"Ebs", "FsxLustre", "FsxOpenZfs", "FsxOntap", "Efs", "FileCache"})),
      anything("EbsSettings"),
      anything("EfsSettings"),
      map("FsxLustreSettings", fsx_lustre_settings()),
      anything("FsxOpenZfsSettings"),
      anything("FsxOntapSettings"),
      anything("FsxFileCacheSettings"),
  }};
  return s;
}

const Section& top_level_imds() {
  static const Section s{{one_of(text("ImdsSupport"), {"v1.0", "v2.0"})}};
  return s;
}

}  // namespace

const Field* Section::find(std::string_view key) const {
  for (const auto& field : fields) {
    if (field.key == key) return &field;
  }
  return nullptr;
}

const Section& custom_action_script_section() {
  static const Section s{{required(text("Script")), strings("Args")}};
  return s;
}

const Section& cluster_section() {
  static const Section s{{
      text("Region"),
      required(map("Image", image())),
      required(map("HeadNode", head_node())),
      required(map("Scheduling", scheduling())),
      maps("SharedStorage", shared_storage()),
      anything("LoginNodes"),
      anything("Monitoring"),
      anything("AdditionalPackages"),
      maps("Tags", tag()),
      anything("Iam"),
      anything("DirectoryService"),
      map("Imds", top_level_imds()),
      text("CustomS3Bucket"),
      text("AdditionalResources"),
      anything("DevSettings"),
      anything("DeploymentSettings"),
  }};
  return s;
}

}  // namespace trn::pcluster
