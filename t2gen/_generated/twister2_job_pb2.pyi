from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class JobState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STARTING: _ClassVar[JobState]
    STARTED: _ClassVar[JobState]
    COMPLETED: _ClassVar[JobState]
    FAILED: _ClassVar[JobState]
    KILLED: _ClassVar[JobState]

class JobFormatType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    JAR: _ClassVar[JobFormatType]
    JAVA_ZIP: _ClassVar[JobFormatType]
    PYTHON: _ClassVar[JobFormatType]
    PYTHON_ZIP: _ClassVar[JobFormatType]
STARTING: JobState
STARTED: JobState
COMPLETED: JobState
FAILED: JobState
KILLED: JobState
JAR: JobFormatType
JAVA_ZIP: JobFormatType
PYTHON: JobFormatType
PYTHON_ZIP: JobFormatType

class JobFormat(_message.Message):
    __slots__ = ("type", "job_file")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    JOB_FILE_FIELD_NUMBER: _ClassVar[int]
    type: JobFormatType
    job_file: str
    def __init__(self, type: _Optional[_Union[JobFormatType, str]] = ..., job_file: _Optional[str] = ...) -> None: ...

class Config(_message.Message):
    __slots__ = ("kvs", "config_byte_map")
    class KeyValue(_message.Message):
        __slots__ = ("key", "value", "serialized_value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        SERIALIZED_VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        serialized_value: bytes
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ..., serialized_value: _Optional[bytes] = ...) -> None: ...
    class ConfigByteMapEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: bytes
        def __init__(self, key: _Optional[str] = ..., value: _Optional[bytes] = ...) -> None: ...
    KVS_FIELD_NUMBER: _ClassVar[int]
    CONFIG_BYTE_MAP_FIELD_NUMBER: _ClassVar[int]
    kvs: _containers.RepeatedCompositeFieldContainer[Config.KeyValue]
    config_byte_map: _containers.ScalarMap[str, bytes]
    def __init__(self, kvs: _Optional[_Iterable[_Union[Config.KeyValue, _Mapping]]] = ..., config_byte_map: _Optional[_Mapping[str, bytes]] = ...) -> None: ...

class ComputeResource(_message.Message):
    __slots__ = ("cpu", "ram_mega_bytes", "disk_giga_bytes", "instances", "workers_per_pod", "scalable", "index")
    CPU_FIELD_NUMBER: _ClassVar[int]
    RAM_MEGA_BYTES_FIELD_NUMBER: _ClassVar[int]
    DISK_GIGA_BYTES_FIELD_NUMBER: _ClassVar[int]
    INSTANCES_FIELD_NUMBER: _ClassVar[int]
    WORKERS_PER_POD_FIELD_NUMBER: _ClassVar[int]
    SCALABLE_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    cpu: float
    ram_mega_bytes: int
    disk_giga_bytes: float
    instances: int
    workers_per_pod: int
    scalable: bool
    index: int
    def __init__(self, cpu: _Optional[float] = ..., ram_mega_bytes: _Optional[int] = ..., disk_giga_bytes: _Optional[float] = ..., instances: _Optional[int] = ..., workers_per_pod: _Optional[int] = ..., scalable: _Optional[bool] = ..., index: _Optional[int] = ...) -> None: ...

class Job(_message.Message):
    __slots__ = ("job_name", "job_id", "worker_class_name", "driver_class_name", "number_of_workers", "compute_resource", "config", "job_format")
    JOB_NAME_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    WORKER_CLASS_NAME_FIELD_NUMBER: _ClassVar[int]
    DRIVER_CLASS_NAME_FIELD_NUMBER: _ClassVar[int]
    NUMBER_OF_WORKERS_FIELD_NUMBER: _ClassVar[int]
    COMPUTE_RESOURCE_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    JOB_FORMAT_FIELD_NUMBER: _ClassVar[int]
    job_name: str
    job_id: str
    worker_class_name: str
    driver_class_name: str
    number_of_workers: int
    compute_resource: _containers.RepeatedCompositeFieldContainer[ComputeResource]
    config: Config
    job_format: JobFormat
    def __init__(self, job_name: _Optional[str] = ..., job_id: _Optional[str] = ..., worker_class_name: _Optional[str] = ..., driver_class_name: _Optional[str] = ..., number_of_workers: _Optional[int] = ..., compute_resource: _Optional[_Iterable[_Union[ComputeResource, _Mapping]]] = ..., config: _Optional[_Union[Config, _Mapping]] = ..., job_format: _Optional[_Union[JobFormat, _Mapping]] = ...) -> None: ...
