#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
